"""Email written as files (the default without a mail server: ``var/mail/``), each batch in a
file of its own.

Django's file backend names a file by the second and the backend object's ``id()``. The email
worker's threads each open a connection; one made after another was freed may get the same
``id()`` within the same second, and the two then append to one file at once: a message longer
than a write buffer lands in pieces, interleaved with the other's."""

import os
import uuid
from datetime import datetime

from django.core.mail.backends import filebased


class EmailBackend(filebased.EmailBackend):
    def _get_filename(self):
        if self._fname is None:
            name = f"{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:12]}.log"
            self._fname = os.path.join(self.file_path, name)
        return self._fname
