"""The one place Django's and psycopg's private names may be used (an import-linter contract and
tests/infra/test_private_names.py fence them in): the PostgreSQL backend (``postgres``), the
Redis cache backend (``cache``), the embedded broker's transport (``broker``), the email files'
names (``mailfiles``), the plain statements of a move (``sql``) and what a driver's error means
(``errors``). A Django or psycopg upgrade that breaks one of these breaks it here and nowhere else."""
