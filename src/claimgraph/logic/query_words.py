"""A query's words, purely: which words of a question or task to rank on, and the words
developers use for the same thing.

Search ranks facts by the words they share with the query (docs/search.md). A question in
plain words ("When did Priya go to the chess club meetup?") carries question and function
words that match almost every fact; they are dropped, so the words that matter ("chess club
meetup") decide. The words kept are lower-cased as the index lower-cases them; the
index stems them (porter), so "painting" here still finds "painted" there.

A task names what it wants in its own words ("install httpx as a dependency") where memory
holds the tool's name ("We always use uv, never pip"). ``related_words`` adds the names a
small curated vocabulary ties to the query's words: package managers for installing, test
runners for testing, and so on. Related words rank below the query's own (search gives them a
route of their own, weighted lower), so a fact in the query's words still comes first.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Iterable, Mapping, Sequence

#: Function words, question words and chat filler: they match nearly every fact.
STOPWORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't down during each few for from further had hadn't has hasn't have haven't having
he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've
if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off
on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's
should shouldn't so some such than that that's the their theirs them themselves then there
there's these they they'd they'll they're they've this those through to too under until up
very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's
which while who who's whom why why's with won't would wouldn't you you'd you'll you're you've
your yours yourself yourselves
also just like really would will shall may might must ever yet still now
whats whos hows whens wheres whys im ive dont doesnt didnt isnt cant wont
kind sort thing things something anything way ways lot lots
""".split())

#: Tokens as the index splits them: runs of letters and digits (``_``, ``.``, ``-`` split).
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

#: Groups of words developers use for one thing. A query word of a group brings the group's
#: other words (see ``related_words``). Kept small and curated: each word here must mean the
#: group's thing in nearly every coding context.
DEV_VOCABULARY: tuple[frozenset[str], ...] = tuple(frozenset(group.split()) for group in (
    # adding a dependency, and the tools that do it
    "add install installs installing installed dependency dependencies deps package packages"
    " pip uv npm pnpm yarn cargo poetry pipenv conda bundler gem composer",
    # running the tests, and the runners
    "test tests testing spec specs pytest jest vitest mocha unittest rspec playwright",
    # shipping
    "deploy deploys deployment release releases releasing ship shipping publish publishing tag",
    # where the data lives
    "db database databases postgres postgresql psql sqlite mysql mariadb",
    # checking code without running it
    "lint linter linting ruff flake8 eslint clippy pylint mypy typecheck pyright",
    # formatting
    "format formatter formatting black prettier rustfmt gofmt",
    # continuous integration
    "ci pipeline pipelines workflow workflows actions",
    # schema changes
    "migration migrations migrate alembic",
    # containers
    "container containers docker compose dockerfile podman",
))
#: Every word of the vocabulary. A word's related words are looked up when a query holds it
#: (``_related``), not tabled for every word at import: a search asks for two or three.
_VOCABULARY = frozenset().union(*DEV_VOCABULARY)


#: General English categories and their common members: a question names the category ("which
#: pets", "what instruments", "which cities") where memory holds a member ("my dog", "the
#: violin", "a trip to Rome"), a word the question does not share. A category word of the
#: query brings its members into the related-words route (``related_words``); a member does
#: not bring its category (a fact about the dog is not about every pet). Kept to categories of
#: everyday life whose members are plain words; the developer vocabulary covers coding.
CATEGORY_GROUPS: tuple[tuple[str, str], ...] = (
    ("pet pets animal animals",
     "dog dogs puppy puppies pup cat cats kitten kittens hamster hamsters rabbit rabbits bunny"
     " guinea parrot bird birds fish goldfish turtle tortoise snake lizard horse horses pony"
     " ferret gerbil chinchilla"),
    ("instrument instruments",
     "guitar piano violin viola cello clarinet flute saxophone sax trumpet trombone tuba drum"
     " drums ukulele harp banjo mandolin keyboard harmonica accordion oboe bassoon bagpipes"
     " synthesizer"),
    ("sport sports",
     "football soccer basketball baseball softball tennis golf hockey volleyball rugby cricket"
     " badminton lacrosse swimming running cycling skiing snowboarding surfing skating boxing"
     " wrestling rowing climbing marathon triathlon"),
    ("martial",
     "karate judo taekwondo kickboxing boxing jujitsu aikido kung muay wrestling mma capoeira"
     " krav fencing"),
    ("country countries abroad",
     "spain england france germany italy greece portugal ireland scotland wales netherlands"
     " belgium switzerland austria sweden norway denmark finland iceland poland hungary"
     " croatia turkey russia japan china korea india thailand vietnam indonesia australia"
     " canada mexico brazil argentina peru chile egypt morocco kenya"),
    ("european europe",
     "spain england france germany italy greece portugal ireland scotland wales netherlands"
     " belgium switzerland austria sweden norway denmark finland iceland poland hungary"
     " croatia czech britain"),
    ("city cities",
     "paris london rome berlin madrid barcelona amsterdam vienna prague venice florence milan"
     " lisbon dublin athens istanbul moscow tokyo kyoto beijing shanghai seoul bangkok"
     " singapore sydney melbourne toronto vancouver montreal chicago boston seattle york"
     " angeles francisco miami vegas orleans austin denver portland"),
    ("outdoor outdoors",
     "hike hiking hikes camping camp climbing mountaineering kayaking canoeing fishing biking"
     " cycling skiing surfing swimming picnic gardening trail trails beach park"),
    ("hobby hobbies pastime pastimes",
     "painting drawing pottery knitting sewing gardening reading writing photography cooking"
     " baking dancing singing hiking fishing chess collecting"),
    ("genre genres",
     "rock pop jazz classical blues metal folk country rap hip reggae punk electronic fantasy"
     " mystery thriller romance horror comedy drama documentary"),
)


def _related(word: str) -> frozenset[str]:
    """The other words of every group of the vocabulary that holds ``word``."""
    groups = [group for group in DEV_VOCABULARY if word in group]
    return frozenset().union(*groups) - {word}


def _members(word: str) -> frozenset[str]:
    """The members of every category ``word`` names (``CATEGORY_GROUPS``), none when it
    names none."""
    return frozenset(member for keys, members in CATEGORY_GROUPS if word in keys.split()
                     for member in members.split())


#: How many matching facts the word ranking may score at most (BM25 reads each one's length):
#: the commonest words go first (they weigh least in BM25), see ``within_budget``.
WORD_POSTINGS_BUDGET = 500


def within_budget(counts: Sequence[tuple[str, int]],
                  budget: int = WORD_POSTINGS_BUDGET) -> list[str]:
    """The words to rank on, given how many facts hold each (counted up to ``budget + 1``):
    the rarest first while their facts add up to at most ``budget``; the commoner words are
    left out (a word on thousands of facts says little about any of them, and scoring all of
    them is what makes a ranking slow). [] when even the rarest is over the budget: the
    trigram route then stands alone. The words keep their given order."""
    kept: set[str] = set()
    total = 0
    for word, count in sorted(counts, key=lambda wc: wc[1]):
        if count == 0:
            continue
        if total + count > budget:
            break
        kept.add(word)
        total += count
    return [word for word, _ in counts if word in kept]


def rarity(facts: int, holding: int) -> float:
    """BM25's rarity weight of a word held by ``holding`` of ``facts`` facts, as SQLite's
    FTS5 computes it: log((N - n + 0.5) / (n + 0.5)), never below a millionth (a word on
    more than half the facts still counts a little). PostgreSQL's ranking, which has no
    rarity weight of its own, multiplies each word's rank by it."""
    import math  # PostgreSQL's ranking alone: SQLite's search never loads it
    weight = math.log((facts - holding + 0.5) / (holding + 0.5)) if facts > holding else 0.0
    return max(weight, 1e-6)


#: One word's hit in a word index: (key, BM25 rank as FTS5 gives it: lower is better,
#: whether the fact is valid at the instant searched).
WordHit = tuple[int | str, float, bool]


def open_word_scores(hits_by_word: Sequence[Sequence[WordHit]],
                     indexed: int) -> dict[int | str, float]:
    """The valid facts' BM25 ranks (lower is better) for a search on several words: each
    word's FTS5 rank re-weighted by the word's rarity among the VALID facts, summed over the
    words; the closed hits dropped.

    FTS5's BM25 counts every row of its index, and the index holds closed facts too, so a
    word that many closed facts hold (a value changed over and over: "Earlier, retry ...")
    weighed less than the same word in a store without them, and the current facts that hold
    it fell below others. A word's FTS5 rank is ``rarity(indexed, all its hits)`` times its
    share of the text, and a BM25 score is the sum of its words', so each word ranked alone
    has its weight swapped for ``rarity(indexed, its valid hits)``. ``indexed``: the rows of
    the index (N). What this leaves to the closed facts: N itself and the mean length of a
    text that BM25 weighs each text's length against (statistics of the whole index, which
    FTS5 keeps and a valid-only version would have to read every closed fact for:
    docs/search.md, "The current value first")."""
    total: dict[int | str, float] = {}
    for hits in hits_by_word:
        valid = [(key, rank) for key, rank, still in hits if still]
        if not valid:
            continue
        weight = rarity(indexed, len(valid)) / rarity(indexed, len(hits))
        for key, rank in valid:
            total[key] = total.get(key, 0.0) + rank * weight
    return total


def contenders(scores: Mapping[int | str, float], limit: int) -> list[int | str]:
    """The keys that can be among the best ``limit`` once ties are broken (by the literal,
    then the id: only these need reading): every key scored no worse than the
    ``limit``-th best."""
    if len(scores) <= limit:
        return list(scores)
    edge = sorted(scores.values())[limit - 1]
    return [key for key, score in scores.items() if score <= edge]


def best_by_score(scores: Mapping[int | str, float],
                  texts: Mapping[int | str, tuple[str, str]], limit: int) -> list[int | str]:
    """The best ``limit`` of the ``contenders`` (``texts``: their literal and id), best score
    first, ties by the literal in code point order (SQLite's BINARY order of UTF-8: the
    same) then the id."""
    return sorted(texts, key=lambda key: (scores[key], *texts[key]))[:limit]


def words(text: str | None) -> list[str]:
    """Every token of the text, lower-cased, in order, repeats dropped."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text or "")))


def content_words(text: str | None) -> list[str]:
    """The words to rank on: tokens that are not stop words (a single letter never is one
    to rank on; a number is: "2022", "v3"). None for a lone identifier ("numpy-74",
    "module_9.retry", "AuthService"): its pieces are not what was asked for, and the trigram
    index finds it whole."""
    if is_identifier(text):
        return []
    return [w for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def is_identifier(text: str | None) -> bool:
    """One token holding a digit, ``_``, ``.``, ``-``, ``/``, ``:`` or an inner capital."""
    token = (text or "").strip()
    if not token or any(c.isspace() for c in token):
        return False
    return (any(c.isdigit() or c in "_.-/:" for c in token)
            or any(c.isupper() for c in token[1:]))


def is_vocabulary_word(word: str) -> bool:
    """Whether the curated vocabulary knows the word (lower-case)."""
    return word in _VOCABULARY


def related_words(query_words: Sequence[str],
                  extra: Iterable[Iterable[str]] = ()) -> list[str]:
    """Words the vocabulary (and ``extra`` groups: a store's entity names with their
    aliases) ties to the query's words, not already among them, in a stable order."""
    have = set(query_words)
    found: dict[str, None] = {}
    groups = [frozenset(w.lower() for w in group) for group in extra]
    for word in query_words:
        for other in sorted(_related(word)):
            if other not in have:
                found.setdefault(other)
        for group in groups:
            if word in group:
                for other in sorted(group - have):
                    found.setdefault(other)
    return list(found)


def category_members(query_words: Sequence[str]) -> list[str]:
    """The members of each category the query's words name (``CATEGORY_GROUPS``: "pets" ->
    dog, cat, ...), not already among the query's words, in a stable order."""
    have = set(query_words)
    found: dict[str, None] = {}
    for word in query_words:
        for member in sorted(_members(word)):
            if member not in have:
                found.setdefault(member)
    return list(found)
