"""Django's ``migrate``, run by one node at a time: two nodes (or a deploy's one-shot job and a
stray ``make run``) that migrate at once would both create the same tables and one would fail
half-way. The second waits for the first, then finds nothing left to do. (docs/deploy.md)"""

from django.core.management.commands import migrate

from kinplay.infra.locks import exclusive


class Command(migrate.Command):
    help = migrate.Command.help + " Waits while another process migrates the same database."

    def handle(self, *args, **options):
        with exclusive("migrate", options["database"]):
            return super().handle(*args, **options)
