from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone

from kinplay.clocks.models import Deadline


class Command(BaseCommand):
    help = "Delete deadlines that were done (applied, superseded...) more than --days ago."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=30)

    def handle(self, days, **opts):
        n, _ = Deadline.objects.filter(done_at__lt=timezone.now() - timedelta(days=days)).delete()
        self.stdout.write(f"Deleted {n} deadline(s) done before {days} day(s) ago.")
