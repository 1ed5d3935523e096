"""What a database error means, read from the driver's exception (which Django keeps as the cause)."""


def is_deadlock(exc: BaseException) -> bool:
    """Whether PostgreSQL broke a deadlock by aborting this transaction (it let the other one go
    on): the work may simply be tried again."""
    return getattr(exc.__cause__, "sqlstate", None) == "40P01"
