"""The rows of a Markdown table in a document (the document tests of tests/analysis)."""


def rows(text, header):
    """The body rows of the first table whose header line starts with @p header, as lists of
    stripped cells; the separator row (---) is left out, and the table ends at the first line
    that is not a row."""
    out, in_table = [], False
    for line in text.splitlines():
        if line.startswith(header):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if set(cells[0]) <= set("-"):
                continue
            out.append(cells)
    return out
