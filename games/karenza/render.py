def render(view, seat, names):
    return "<div class='karenza'></div>"
