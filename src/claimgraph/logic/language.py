"""A cheap guess at the language a person typed a message in (docs/capture.md, "The sentence
model").

The sentence model and the cue lists read English. A sentence in another language is scored
like any other, but its score says nothing (it can essentially never be kept), so the capture
report says which sentences were read but not judged, instead of counting them silently among
the requests and remarks. The guess only labels: it never decides what is stored.

Deterministic and dependency-free: the script of the letters first (CJK, kana, hangul,
Cyrillic, …), then, for text in Latin letters, how many of its words are the small function
words of French, Italian, Portuguese, Spanish or German against those of English. Code, paths,
URLs and identifiers are left out first: they are not words of any language. A message too
short to tell, or with too few function words, is ``und`` (undetermined), never a language.
"""

from __future__ import annotations

import re
from collections import Counter

ENGLISH = "en"
UNDETERMINED = "und"

#: What a code names, for a person reading the capture report.
NAMES = {"fr": "French", "it": "Italian", "pt": "Portuguese", "es": "Spanish", "de": "German",
         "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ru": "Russian",
         "uk": "Ukrainian", "el": "Greek", "ar": "Arabic", "he": "Hebrew", "hi": "Hindi",
         "th": "Thai"}

_EN = frozenset(
    "the a an and or of to in is are be it this that for on with as not you we i do does can "
    "should will would have has was were but if so just use make my our your its from at by "
    "all also then there what how why when which please let's don't it's no".split())
#: Function words, with the English ones taken out: a word both languages use is no evidence.
_STOP = {lang: frozenset(words.split()) - _EN for lang, words in {
    "fr": "le la les un une des et ou de du au aux est sont être ce cette ces pour sur avec "
          "dans pas ne que qui je tu nous vous il elle mais si donc faut fais fait peux peut "
          "veux aussi très tout tous bien comme même mon ma mes ton ta notre votre leur sans "
          "à soit doit dois avoir faire quand où alors ça cela été entre chaque ensuite voici "
          "toujours jamais rien",
    "it": "il lo la gli le un una uno e di da con su che non è sono questo questa questi "
          "queste del della dei delle nel nella al alla anche ma se più fai fare puoi deve "
          "devi voglio tutti tutto mi ci sul sulla quale sempre mai ora poi dove quando perché "
          "ho hai",
    "pt": "o os um uma e em na com não é são este esta isso mas mais também você tem do da "
          "dos das ao seu sua quando onde porque muito sem já fazer preciso pra nao pode veja "
          "agora ainda então essa esse",
    "es": "el la los las un una y o del en con por para que es son este esta estos pero más "
          "como hay puedes quiero también todo todos cuando donde porque muy sin ya hacer "
          "necesito",
    "de": "der die das ein eine und oder von zu ist sind nicht mit für auf dem den des ich du "
          "wir sie es auch aber wenn dass bitte noch nur kann soll muss werden wird bei aus "
          "nach wie mal schon immer nie keine kein diese dieser hier jetzt",
}.items()}
#: Letters only one of these languages writes often: half a function word each.
_ACCENTS = {"fr": "éèêàçùûôîœ", "it": "àèìòù", "pt": "ãõçâêô", "es": "ñ¿¡", "de": "äöüß"}
#: French elisions ("l'API", "c'est", "qu'il"), straight or curly apostrophe.
_ELISION = re.compile(r"^(?:l|d|qu|n|c|j|s)['’]\w", re.IGNORECASE)

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]*`")
#: A token that is code, a path, a URL, an address or an identifier, not a word.
_CODE_TOKEN = re.compile(r"[/\\_=<>{}\[\]()@#$|:;*+~^%&\d]|\w\.\w|^-|[a-z][A-Z]")
#: Punctuation around a word, taken off before asking whether the token is code.
_EDGES = ".,;:!?()[]{}\"'«»“”‘’*"
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")

#: (first, last, script) code point ranges; a CJK character carries about a word.
_SCRIPTS = ((0x3040, 0x30FF, "kana"), (0x4E00, 0x9FFF, "han"), (0x3400, 0x4DBF, "han"),
            (0xAC00, 0xD7AF, "hangul"), (0x1100, 0x11FF, "hangul"), (0x0400, 0x04FF, "cyr"),
            (0x0370, 0x03FF, "el"), (0x0600, 0x06FF, "ar"), (0x0590, 0x05FF, "he"),
            (0x0900, 0x097F, "hi"), (0x0E00, 0x0E7F, "th"))
_WIDE = {"kana", "han", "hangul"}
_MIN_WORDS = 3
_MIN_HITS = 2
_OVER_ENGLISH = 2.0


def message_language(text: str) -> str:
    """``en``, ``und`` or the code of the language ``text`` is written in (a key of
    ``NAMES``). Read per message, so a short reply ("oui", "可以") takes its message's."""
    text = _INLINE.sub(" ", _FENCE.sub(" ", text))
    prose = _prose(text)
    return _by_script(text, prose) or _by_words(prose)


def is_other_language(code: str) -> bool:
    """A language the sentence model does not read (not English, not undetermined)."""
    return code not in (ENGLISH, UNDETERMINED)


def _prose(text: str) -> str:
    """The words of ``text``, without tokens that are code, paths, URLs or names."""
    tokens = (token.strip(_EDGES) for token in text.split())
    return " ".join(token for token in tokens if not _CODE_TOKEN.search(token))


def _by_script(text: str, prose: str) -> str | None:
    """Letters of another script, counted in the whole text (CJK is written without spaces,
    so its words sit inside tokens that also hold a name), against the Latin letters of the
    words alone (a path or an identifier is no English)."""
    counts: Counter[str] = Counter()
    for ch in text:
        point = ord(ch)
        script = next((name for first, last, name in _SCRIPTS if first <= point <= last), None)
        if script:
            counts[script] += 1
    latin = sum(1 for ch in prose if ch.isalpha() and ord(ch) < 0x250)
    wide = sum(counts[name] for name in _WIDE)
    if wide >= 2 and wide * 3 >= latin:
        if counts["kana"] >= 2:
            return "ja"
        return "ko" if counts["hangul"] > counts["han"] else "zh"
    narrow = [(n, name) for name, n in counts.items() if name not in _WIDE]
    if narrow:
        n, name = max(narrow)
        if n >= 4 and n >= latin:
            return _cyrillic(prose) if name == "cyr" else name
    return None


def _cyrillic(prose: str) -> str:
    return "uk" if any(ch in "іїєґІЇЄҐ" for ch in prose) else "ru"


def _by_words(prose: str) -> str:
    words = [w.lower() for w in _WORD.findall(prose)]
    if len(words) < _MIN_WORDS:
        return UNDETERMINED
    english = sum(1 for w in words if w in _EN)
    letters = set("".join(words))
    scores = {lang: sum(1 for w in words if w in stop or (lang == "fr" and _ELISION.match(w)))
              + 0.5 * len(letters & set(_ACCENTS[lang]))
              for lang, stop in _STOP.items()}
    best = max(sorted(scores), key=lambda lang: scores[lang])
    if scores[best] >= _MIN_HITS and scores[best] >= _OVER_ENGLISH * english:
        return best
    return ENGLISH if english else UNDETERMINED
