def render(view, seat, names):
    return "<div class='kenta'></div>"
