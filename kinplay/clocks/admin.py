from django.contrib import admin
from django.utils import timezone

from kinplay.clocks.models import Deadline


@admin.register(Deadline)
class DeadlineAdmin(admin.ModelAdmin):
    """Deadlines as the sweep sees them; a failing one shows its attempts and last error."""

    list_display = ("id", "game", "kind", "seat", "key", "due_at", "done_at", "outcome", "attempts")
    list_filter = ("kind", "outcome", ("done_at", admin.EmptyFieldListFilter))
    search_fields = ("=game__id",)
    readonly_fields = ("game", "kind", "seat", "key", "version", "done_at", "outcome", "attempts", "error")
    actions = ["retry_now"]

    def has_add_permission(self, request, obj=None):
        return False

    @admin.action(description="Apply at the next sweep (pending deadlines)")
    def retry_now(self, request, queryset):
        n = queryset.filter(done_at__isnull=True).update(due_at=timezone.now())
        self.message_user(request, f"{n} deadline(s) will be applied at the next sweep.")
