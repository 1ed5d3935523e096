"""Games and their streams in the admin: to look, never to edit (the stream is append-only and
the game row is rebuilt from it; `rebuild_projections` is the one way to rewrite a row)."""

from django.contrib import admin

from games.models import Event, Game, History


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class EventInline(admin.TabularInline):
    model = History  # compacted or not
    fields = ("seq", "type", "seat", "at", "command")
    readonly_fields = fields
    ordering = ("-seq",)
    extra = 0
    max_num = 0
    can_delete = False

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-seq")


@admin.register(Game)
class GameAdmin(ReadOnly):
    list_display = ("id", "kind", "status", "version", "to_act", "deadline", "updated_at")
    list_filter = ("status", "kind")
    search_fields = ("=id", "seats__user__username")
    date_hierarchy = "created_at"
    exclude = ("seed",)  # secret until the game ends


@admin.register(Event)
class EventAdmin(ReadOnly):
    """The rows of the events table: games in play and those not compacted yet."""

    list_display = ("game", "seq", "type", "seat", "at")
    list_filter = ("type",)
    search_fields = ("=game__id",)
    list_select_related = ("game",)
    ordering = ("-id",)
