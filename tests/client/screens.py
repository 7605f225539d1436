"""What the full-screen table shows, as plain text, for tests, text snapshots and the screenshots
in docs/playing.md.

Textual's public screenshot calls (`App.export_screenshot`, `save_screenshot`) give an SVG
picture, not text. They draw the screen's compositor's strips, and this one helper reads the same
strips as text: the only place the tests touch a Textual internal (`Screen._compositor`), kept
here so that a Textual upgrade that moves it breaks one function."""
from textual.app import App


def screen_text(app: App) -> str:
    """The screen as plain text, one line per row, without trailing spaces."""
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips())


def pane_text(app: App, selector: str) -> str:
    """The part of the screen a widget covers (`#log`, say), its border and padding too, as
    plain text: a pane beside another is read on its own, not row by row across both."""
    region = app.query_one(selector).region
    rows = screen_text(app).splitlines()[region.y:region.bottom]
    return "\n".join(row[region.x:region.right].rstrip() for row in rows)


def pane_words(app: App, selector: str) -> str:
    """A pane's words, its lines joined: what it says, however its width wrapped it."""
    return " ".join(pane_text(app, selector).split())
