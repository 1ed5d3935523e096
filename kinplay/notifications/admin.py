from django.contrib import admin
from django.db import transaction

from kinplay.notifications.models import Outbox
from kinplay.notifications.services import kick


@admin.register(Outbox)
class OutboxAdmin(admin.ModelAdmin):
    """The emails: sent, waiting for a retry (attempts, error), or given up on (failed)."""

    list_display = ("id", "kind", "user", "game", "version", "created_at", "sent_at", "attempts", "next_attempt_at", "failed_at")
    list_filter = ("kind", ("sent_at", admin.EmptyFieldListFilter), ("failed_at", admin.EmptyFieldListFilter))
    search_fields = ("user__username", "user__email", "=game__id")
    list_select_related = ("user", "game")
    readonly_fields = [f.name for f in Outbox._meta.fields]
    actions = ["send_again"]

    def has_add_permission(self, request, obj=None):
        return False

    @admin.action(description="Try again now (unsent emails)")
    def send_again(self, request, queryset):
        n = queryset.filter(sent_at__isnull=True).update(failed_at=None, next_attempt_at=None, claimed_at=None, attempts=0)
        transaction.on_commit(kick)
        self.message_user(request, f"{n} email(s) will be sent again.")
