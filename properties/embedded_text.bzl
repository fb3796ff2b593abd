"""A text file compiled in as a C++ string, so a binary carries its tables."""

def embedded_text(name, src, symbol, namespace):
    """Makes `name`.cc defining `const char symbol[]` holding `src`'s text.

    The text is a raw string literal: it must not contain ')stackcheck_text"'.
    """
    native.genrule(
        name = name,
        srcs = [src],
        outs = [name + ".cc"],
        cmd = " ".join([
            "(echo 'namespace %s {';" % namespace,
            "echo 'extern const char %s[];';" % symbol,
            "echo 'const char %s[] = R\"stackcheck_text(';" % symbol,
            "cat $<;",
            "echo ')stackcheck_text\";';",
            "echo '}') > $@",
        ]),
    )
