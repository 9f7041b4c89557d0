"""The language guess that tells capture which typed sentences the sentence model cannot judge:
a language is named only on evidence (its script, or its function words well ahead of
English's); code, paths and names are no language's words."""

from __future__ import annotations

import pytest

from claimgraph.logic.language import is_other_language, message_language


@pytest.mark.parametrize("text, code", [
    ("Il faut toujours lancer les tests avant de pousser sur la branche principale.", "fr"),
    ("Je ne veux pas que tu modifies le fichier de configuration.", "fr"),
    ("テストを実行してからコミットしてください。", "ja"),
    ("이 파일은 수정하지 마세요", "ko"),
    ("请不要修改这个配置文件", "zh"),
    ("Не трогай этот файл, пожалуйста", "ru"),
    ("Non aggiungere commenti che ripetono il codice, per favore.", "it"),
    ("Bitte immer die Tests laufen lassen, bevor du etwas pushst.", "de"),
    ("Siempre usa la rama principal para los cambios de la documentación.", "es"),
    ("Não precisa enviar, só resolva o problema com os testes.", "pt"),
])
def test_a_message_in_another_language_is_named(text, code):
    assert message_language(text) == code
    assert is_other_language(code)


@pytest.mark.parametrize("text", [
    "Always run the tests before you push to the main branch.",
    # one French word in an English sentence is not French
    "Please add a café section to the menu page and keep the déjà vu joke out of it.",
    # a French phrase quoted in English: its function words are outnumbered
    "Use the phrase 'à la carte' for the menu and keep the rest of the text in English as it is.",
    "Rename the function to avoir_le_droit and move it into utils.py.",
])
def test_english_stays_english(text):
    assert message_language(text) == "en"


@pytest.mark.parametrize("text", [
    # paths, identifiers, flags and code: no language's words, whatever their letters say
    "src/le_module/de_la/config.py --des-options=les_tests",
    "`le la les des une est pour dans` /usr/lib/la/de/le",
    "```\nle = la + les\nde = est(pour, dans)\n```",
    "la_valeur.de_la_config() est_une_fonction pour_les_tests",
    "oui",
])
def test_code_and_short_replies_name_no_language(text):
    assert not is_other_language(message_language(text))


def test_cjk_written_around_a_file_name_is_still_read():
    """CJK has no spaces: its words sit in the same token as a name ("README.mdを")."""
    assert message_language("README.mdを更新してから、npm run buildを実行してください") == "ja"


def test_an_english_message_with_a_japanese_quote_is_english():
    text = ("The error message in the log says 失敗しました but the test itself passes; please "
            "look at why the logger prints it when nothing failed in the run.")
    assert message_language(text) == "en"
