"""HTML parse mode as Telegram does it: plain text, UTF-16 entities, tdlib's error texts."""

import pytest

from tg_durak.emulator.markup import (
    EntityParseError,
    find_bot_commands,
    parse_html,
    to_html,
    trim,
    utf16_len,
)


def test_tags_become_entities_with_utf16_offsets():
    text, entities = parse_html("🃏 <b>Trump <i>6♠</i></b> &lt;3 <a href='https://t.me/x'>go</a>")
    assert text == "🃏 Trump 6♠ <3 go"
    assert entities == [
        {"type": "bold", "offset": 3, "length": 8},  # the joker is two UTF-16 code units
        {"type": "italic", "offset": 9, "length": 2},
        {"type": "text_link", "offset": 15, "length": 2, "url": "https://t.me/x"},
    ]


def test_pre_with_language_and_plain_code():
    assert parse_html('<pre><code class="language-python">x = 1</code></pre>') == (
        "x = 1", [{"type": "pre", "offset": 0, "length": 5, "language": "python"}]
    )
    assert parse_html('<code class="language-python">x</code>') == (
        "x", [{"type": "code", "offset": 0, "length": 1}]
    )


def test_only_four_named_character_references_are_decoded():
    assert parse_html("&lt;&gt;&amp;&quot; &#65;&#x42; &nbsp;")[0] == '<>&" AB &nbsp;'


def test_empty_tags_make_no_entity():
    assert parse_html("<b></b>x") == ("x", [])


@pytest.mark.parametrize(
    ("source", "error"),
    [  # the cases of tdlib's own test suite
        ("🏟 🏟&lt;<abacaba", "Unclosed start tag at byte offset 13"),
        ("🏟 🏟&lt;<abac aba>", 'Unsupported start tag "abac" at byte offset 13'),
        ("🏟 🏟&lt;<i   =aba>", 'Empty attribute name in the tag "i" at byte offset 13'),
        (
            "🏟 🏟&lt;<i    aba>",
            'Expected equal sign in declaration of an attribute of the tag "i" at byte offset 13',
        ),
        ("🏟 🏟&lt;<i    aba  =  ", 'Unclosed start tag "i" at byte offset 13'),
        ("🏟 🏟&lt;<i    aba  =  190azAz-.,", "Unexpected end of name token at byte offset 27"),
        ('🏟 🏟&lt;<i    aba  =  "&lt;&gt;&quot;>', "Unclosed start tag at byte offset 13"),
        ("🏟 🏟&lt;</", "Unexpected end tag at byte offset 13"),
        ("🏟 🏟&lt;<b></b></", "Unexpected end tag at byte offset 20"),
        ("🏟 🏟&lt;<i>a</i   ", "Unclosed end tag at byte offset 17"),
        (
            "🏟 🏟&lt;<i>a</em   >",
            'Unmatched end tag at byte offset 17, expected "</i>", found "</em>"',
        ),
        ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
def test_parse_errors_are_worded_like_telegram(source, error):
    with pytest.raises(EntityParseError) as caught:
        parse_html(source)
    assert str(caught.value) == error


def test_trim_strips_outer_whitespace_and_moves_entities():
    text, entities = trim(*parse_html("\n  <b> hi </b>x \n"))
    assert text == "hi x"
    assert entities == [{"type": "bold", "offset": 0, "length": 3}]


def test_html_round_trip():
    source = '<b>bold <i>both</i></b> 🃏 <a href="https://x.y/?a=1&amp;b=2">link</a> &lt;'
    assert to_html(*parse_html(source)) == source


def test_bot_commands_are_marked_where_telegram_marks_them():
    assert find_bot_commands("/start abc") == [{"type": "bot_command", "offset": 0, "length": 6}]
    text = "🃏 /new@durak_test_bot, a/b /x@ab /ok"
    found = [(e["offset"], e["length"]) for e in find_bot_commands(text)]
    assert found == [(utf16_len("🃏 "), len("/new@durak_test_bot")), (text.index("/ok") + 1, 3)]
