"""A signed-in player's POST from a competition's page (join, leave, start ...): one service call,
its outcome said as a message on the page it came from."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST


def page_action(fn, done, *, missing, refused, back):
    """The view of ``fn(pk, user)`` (a service): ``done`` (or ``done(its result)``) as the message
    when it acts, its refusal's words when it raises one of ``refused``, a 404 for ``missing``;
    then back to the ``back`` page of that pk."""

    @login_required
    @require_POST
    def view(request, pk):
        try:
            row = fn(pk, request.user)
        except missing:
            raise Http404 from None
        except refused as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, done(row) if callable(done) else done)
        return redirect(back, pk=pk)

    return view
