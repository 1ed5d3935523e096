from django.contrib import admin
from django.db import transaction

from kinplay.notifications.models import Bounce, Outbox
from kinplay.notifications.services import kick


@admin.register(Outbox)
class OutboxAdmin(admin.ModelAdmin):
    """The emails and pushes: sent, waiting for a retry (attempts, error), or given up on (failed)."""

    list_display = ("id", "kind", "channel", "user", "game", "version", "created_at", "sent_at", "attempts", "next_attempt_at", "failed_at")
    list_filter = ("kind", "channel", ("sent_at", admin.EmptyFieldListFilter), ("failed_at", admin.EmptyFieldListFilter))
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


@admin.register(Bounce)
class BounceAdmin(admin.ModelAdmin):
    """Delivery reports: a hard bounce counts towards stopping the mail to its address ("failing",
    MAIL_HARD_BOUNCES of them); the owner confirming an address again clears them."""

    list_display = ("address", "hard", "failing", "outbox", "received_at")
    list_filter = ("hard",)
    search_fields = ("address",)
    readonly_fields = [f.name for f in Bounce._meta.fields]

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(boolean=True, description="failing (no more email)")
    def failing(self, obj):
        return Bounce.failing(obj.address)
