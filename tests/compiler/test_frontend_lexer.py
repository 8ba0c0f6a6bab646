"""clang's lexer as the compiler's one tokenizer (pyemu/compiler/frontend/lex.py)."""
from pyemu.compiler.frontend import lex


def _spelled(text):
    return [(k, text[a:b]) for k, a, b in lex.lex(text)]


def test_lexer_splits_as_cxx_does():
    text = ("int a = 1'000; auto s = R\"x(a)\" b)x\"; // note\n"
            "char c = '\\''; u8\"s\"; v.s3c5 <<= .5f; x::y; %: define Q \\\n new")
    assert _spelled(text) == [
        ("id", "int"), ("id", "a"), ("op", "="), ("num", "1'000"), ("op", ";"),
        ("id", "auto"), ("id", "s"), ("op", "="), ("raw", 'R"x(a)" b)x"'), ("op", ";"),
        ("comment", "// note"), ("id", "char"), ("id", "c"), ("op", "="), ("chr", "'\\''"),
        ("op", ";"), ("str", 'u8"s"'), ("op", ";"), ("id", "v"), ("op", "."), ("id", "s3c5"),
        ("op", "<<="), ("num", ".5f"), ("op", ";"), ("id", "x"), ("op", "::"), ("id", "y"),
        ("op", ";"), ("op", "%:"), ("id", "define"), ("id", "Q"), ("id", "new")]
    # offsets are the text's: each token's text is where lex() says
    for k, a, b in lex.lex(text):
        assert text[a:b].strip() == text[a:b] and b > a


def test_lexer_keeps_directives_and_the_wrapper_out():
    # the text's own #if/#endif (unbalanced too) are tokens like others
    text = "#endif\n#if 1\nint x;\n#else\n"
    assert [t for _, t in _spelled(text)] == ["#", "endif", "#", "if", "1", "int", "x", ";",
                                               "#", "else"]
    first = [(text[a:b], f) for _, a, b, f in lex.code(text, lex.lex(text))]
    assert first[:3] == [("#", True), ("endif", False), ("#", True)]
    assert lex.lex("") == []


def test_line_starts_see_comments_as_whitespace():
    text = "/* c */ # define A 1\n#define B /* a\n */ C\nD \\\n E"
    starts = [text[a:b] for _, a, b, f in lex.code(text, lex.lex(text)) if f]
    assert starts == ["#", "#", "D"]
