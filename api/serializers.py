from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from rest_framework import serializers


class RegisterSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{2,30}$", error_messages={"invalid": "2 to 30 letters, digits or . @ + - _"})
    email = serializers.EmailField()
    password = serializers.CharField(write_only=True)

    def validate_username(self, value):
        if get_user_model().objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("That username is taken.")
        return value

    def validate_password(self, value):
        validate_password(value)
        return value


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField()


class ClockSerializer(serializers.Serializer):
    per_move = serializers.IntegerField(min_value=1, allow_null=True, required=False)
    on_timeout = serializers.ChoiceField(["bot", "skip", "forfeit"], default="bot")
    window = serializers.IntegerField(min_value=1, allow_null=True, required=False,
                                      help_text="seconds a reaction window stays open (≤ per_move); default: per_move")


class CreateGameSerializer(serializers.Serializer):
    kind = serializers.CharField()
    options = serializers.DictField(required=False, default=dict)
    seats = serializers.ListField(child=serializers.DictField(), min_length=1)
    clock = ClockSerializer(required=False)
    rated = serializers.BooleanField(default=True, help_text="false: a friendly game that changes no rating")
    invite_only = serializers.BooleanField(default=False, help_text="cancel the game if an invitation is declined or lapses, instead of opening the seat")


class ActionSerializer(serializers.Serializer):
    action = serializers.DictField(required=False)
    notation = serializers.CharField(required=False)
    expected_version = serializers.IntegerField(required=False, min_value=0)

    def validate(self, data):
        if ("action" in data) == ("notation" in data):
            raise serializers.ValidationError("Send exactly one of “action” or “notation”.")
        return data


class SeatOut(serializers.Serializer):
    index = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.CharField(allow_null=True)
    you = serializers.BooleanField()
    invited = serializers.BooleanField(help_text="invited and not yet accepted")
    standing = serializers.ChoiceField(["ask", "unable", "always"], required=False,
                                       help_text="your standing answer to reaction windows (your own seat only)")


class StandingSerializer(serializers.Serializer):
    answer = serializers.ChoiceField(["ask", "unable", "always"], help_text=(
        "ask: ask me every time; unable: pass for me only when I cannot react; "
        "always: always let cards resolve / never raise my hand unless I answer myself"))


class LegalActionOut(serializers.Serializer):
    notation = serializers.CharField()
    label = serializers.CharField()
    action = serializers.DictField()


class GameOut(serializers.Serializer):
    """The ``<game>`` of DESIGN.md's API contract."""

    id = serializers.IntegerField()
    kind = serializers.CharField()
    options = serializers.DictField()
    status = serializers.ChoiceField(["waiting", "active", "finished", "aborted"])
    version = serializers.IntegerField()
    seats = SeatOut(many=True)
    to_act = serializers.ListField(child=serializers.IntegerField())
    deadline = serializers.DateTimeField(allow_null=True)
    view = serializers.DictField()
    legal_actions = LegalActionOut(many=True)
    result = serializers.DictField(allow_null=True)
    rated = serializers.BooleanField()
    fairness = serializers.DictField()


class EventOut(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    data = serializers.DictField()
    seat = serializers.IntegerField(allow_null=True)
    at = serializers.DateTimeField()


class ActionResultOut(serializers.Serializer):
    version = serializers.IntegerField()
    events = EventOut(many=True)
    game = GameOut()


class KindOut(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    options = serializers.DictField()


class VacationSerializer(serializers.Serializer):
    on = serializers.BooleanField()


class VacationOut(serializers.Serializer):
    on = serializers.BooleanField()
    since = serializers.DateTimeField(allow_null=True)
    until = serializers.DateTimeField(allow_null=True, help_text="when it ends by itself, the allowance used up")
    allowance_days = serializers.IntegerField()
    used_days = serializers.FloatField(help_text="this calendar year (UTC)")
    left_days = serializers.FloatField()
