import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")
site = get_wsgi_application()  # sets Django up

from api.handler import ApiHandler, ByPath  # noqa: E402  (needs Django set up)

# /api/ runs a leaner middleware stack (api/handler.py); the pages keep the site's.
application = ByPath(api=ApiHandler(), site=site)
