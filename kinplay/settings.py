"""kinplay settings: everything that differs between machines comes from the environment.

Without any variable set, kinplay runs on the embedded default: SQLite in var/,
Celery over a filesystem broker in var/broker, email written to var/mail.
"""

import copy
import json
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("KINPLAY_VAR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

env = environ.Env()

# Never the public default key: SECRET_KEY from the environment, else the one `make run`
# generated into var/ (bin/secret-key); with neither, refuse to start.
SECRET_KEY_FILE = VAR_DIR / "secret_key"
SECRET_KEY = env.str("SECRET_KEY", "") or (SECRET_KEY_FILE.read_text().strip() if SECRET_KEY_FILE.exists() else "")
if not SECRET_KEY or SECRET_KEY == "dev-only-insecure-key-change-me-in-production":
    raise ImproperlyConfigured(
        f"kinplay has no SECRET_KEY. Set the SECRET_KEY environment variable (50+ random characters), "
        f"or run `bin/secret-key` (`make run` does) to generate one into {SECRET_KEY_FILE} and keep it."
    )
DEBUG = env.bool("DEBUG", False)
SITE_URL = env.str("SITE_URL", f"http://127.0.0.1:{env.int('PORT', 8000)}")
_site = urlsplit(SITE_URL)
HTTPS = _site.scheme == "https"  # the secure defaults below follow the public address
# Only the hosts of SITE_URL and this machine unless ALLOWED_HOSTS says otherwise ("*" if you mean it).
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=sorted({_site.hostname or "127.0.0.1", "127.0.0.1", "localhost", "[::1]"}))
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[f"{_site.scheme}://{_site.netloc}"])
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", HTTPS)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", HTTPS)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", 365 * 24 * 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", False)
# Behind a TLS-terminating proxy: SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https (only if the
# proxy always sets or strips that header).
SECURE_PROXY_SSL_HEADER = tuple(env.list("SECURE_PROXY_SSL_HEADER", default=[])) or None
if SECURE_PROXY_SSL_HEADER is not None and len(SECURE_PROXY_SSL_HEADER) != 2:
    raise ImproperlyConfigured("SECURE_PROXY_SSL_HEADER is a header and a value, e.g. HTTP_X_FORWARDED_PROTO,https.")
# Requests are bounded: bodies (JSON 413 from the API), form fields.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", 256 * 1024)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "anymail",
    "axes",
    "kinplay.infra",
    "kinplay.accounts",
    "games",
    "kinplay.clocks",
    "kinplay.notifications",
    "kinplay.ratings",
    "kinplay.web",
    "kinplay.tournaments",
    "kinplay.leagues",
    "kinplay.ladders",
    "api",
]

# One list for every request. Where /api/ needs less than the pages (no static files, no flash
# messages) or otherwise (a 308 for a missing final slash), kinplay/middleware.py splits by path.
MIDDLEWARE = [
    "kinplay.middleware.NoNul",  # first: a NUL in a path, a query or a cookie reaches no lookup
    "django.middleware.security.SecurityMiddleware",
    "kinplay.middleware.WhiteNoise",  # the pages only
    "django.contrib.sessions.middleware.SessionMiddleware",
    "kinplay.middleware.CommonMiddleware",  # /api/: SlashFirst's 308; the pages: Django's CommonMiddleware
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "kinplay.middleware.Messages",  # the pages only
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into a 429
]

ROOT_URLCONF = "kinplay.urls"
WSGI_APPLICATION = "kinplay.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite: IMMEDIATE transactions (writers queue instead of failing mid-way), WAL with
# synchronous=FULL so an acknowledged move survives a crash (docs/architecture.md#the-event-store).
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 30,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
}
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'kinplay.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
    # The test database is a file too, so a real Celery worker process can share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
else:
    # Each process keeps a pool of connections (Django's, psycopg_pool) that its threads borrow
    # for a request or a task and give back: PG_POOL_SIZE at most per process, so the database
    # sees processes × PG_POOL_SIZE connections whatever the threads. PG_POOL=false: a
    # connection per thread, kept 60 s. A connection is checked before reuse, so a database
    # restart causes no 500s (kinplay.infra.postgres: without a round trip while it is quiet).
    if env.bool("PG_POOL", True):
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # given back to the pool after each request
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1, "max_size": env.int("PG_POOL_SIZE", 8), "timeout": 5, "max_idle": 300,
        }
    else:
        DATABASES["default"].setdefault("CONN_MAX_AGE", 60)
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"]["ENGINE"] = "kinplay.infra.postgres"  # the check without a round trip when quiet
    # Parameters bound by the server and statements prepared after their 2nd use: PostgreSQL
    # parses and plans a move's few statements once per connection, not on every move
    # (measured in bench/api.py). Behind a transaction-mode pooler set PG_PREPARE=false.
    if env.bool("PG_PREPARE", True):
        DATABASES["default"]["OPTIONS"] = {
            "server_side_binding": True, "prepare_threshold": 2, **DATABASES["default"].get("OPTIONS", {}),
        }
    # A database that does not answer fails the request (or the sweep) in seconds, not minutes.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)

# A streaming replica of the PostgreSQL database (docs/deploy.md): the reads that may lag a
# little (leaderboards, player pages) go there while it is at most REPLICA_MAX_LAG seconds behind
# (kinplay.infra.replica). In tests it mirrors the test database.
REPLICA_MAX_LAG = env.float("REPLICA_MAX_LAG", 5.0)
if env.str("REPLICA_DATABASE_URL", "") and DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    _replica = env.db("REPLICA_DATABASE_URL")
    DATABASES["replica"] = {**copy.deepcopy(DATABASES["default"]), **{k: _replica[k] for k in ("NAME", "USER", "PASSWORD", "HOST", "PORT")},
                            "TEST": {"MIRROR": "default"}}
    DATABASE_ROUTERS = ["kinplay.infra.replica.ReplicaRouter"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

PASSWORD_MIN_LENGTH = 8  # the API's schema says it too
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": PASSWORD_MIN_LENGTH}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Repeated failed logins (page and API token) lock that username from that address for a while
# (django-axes, its attempts in the database so every web process agrees).
AUTHENTICATION_BACKENDS = ["kinplay.accounts.backends.LockoutBackend", "django.contrib.auth.backends.ModelBackend",
                           "kinplay.accounts.backends.NameInAnyCaseBackend"]
LOGIN_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", 5)  # failed sign-ins answered as such; the next is refused
AXES_FAILURE_LIMIT = "kinplay.accounts.lockout.failure_limit"
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "kinplay.accounts.lockout.locked_out"
AXES_USERNAME_CALLABLE = "kinplay.accounts.backends.lockout_name"  # one budget per name, in any case
# Whose address a request is (throttles and lockouts): the socket's, unless PROXY_COUNT trusted
# proxies (nginx: 1) put the client's in X-Forwarded-For. Never the header alone, which anyone can send.
PROXY_COUNT = env.int("PROXY_COUNT", 0)
if PROXY_COUNT:
    AXES_IPWARE_PROXY_COUNT = PROXY_COUNT
    AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# Celery. REDIS_URL switches the broker to Redis; without it, an embedded filesystem
# broker lets worker and beat run on any machine.
REDIS_URL = env.str("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # Every call to Redis is bounded: a hung Redis (SIGSTOP, a full network buffer) makes a
    # publish fail after a second instead of freezing the web worker that made it.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "socket_timeout": 5, "socket_connect_timeout": 1, "health_check_interval": 25,
    }
else:
    _broker = VAR_DIR / "broker"
    for sub in ("out", "processed", "control"):
        (_broker / sub).mkdir(parents=True, exist_ok=True)
    # kombu's filesystem transport, made to set aside unreadable message files (kinplay/infra/broker.py).
    CELERY_BROKER_URL = "kinplayfs://localhost/"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker / "out"),
        "data_folder_out": str(_broker / "out"),
        "processed_folder": str(_broker / "processed"),
        "control_folder": str(_broker / "control"),
        "store_processed": False,
    }
# The cache holds the API's throttle counters: shared by every process (Redis, else files in var/).
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "kinplay.infra.cache.RedisCache", "LOCATION": REDIS_URL,  # one client per pool
                          "KEY_PREFIX": "kinplay",
                          # bounded: a hung Redis fails a throttle check fast (api/throttles.py lets it through)
                          "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                          "LOCATION": str(VAR_DIR / "cache")}}
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A move must never wait on a dead broker: publishing fails fast, the sweep catches up.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# None = the worker and beat retry for ever after a broker outage (0 would make the worker exit
# with "Unrecoverable error" on the first lost connection: tests/services). Publishing is still bounded
# by BROKER_CONNECTION_TIMEOUT: kombu gives up connecting a producer after that many seconds.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_PUBLISH_RETRY = False
SWEEP_SECONDS = env.float("SWEEP_SECONDS", 5.0)
# Deadlines and email on their own queues, consumed by their own workers (bin/run): a deadline
# never waits behind a slow mail server. A sweep not started in time expires: the next one
# does its work, so a backlog of sweeps never piles up behind a stopped worker.
CELERY_TASK_ROUTES = {
    "kinplay.clocks.tasks.*": {"queue": "deadlines"},
    "games.tasks.*": {"queue": "deadlines"},  # owed bot moves: game play, never behind email
    "kinplay.notifications.tasks.*": {"queue": "email"},
    "kinplay.accounts.tasks.*": {"queue": "email"},  # the password reset's lookup: it ends in an email
    "kinplay.tournaments.tasks.*": {"queue": "deadlines"},  # pairing rounds, adjudication: game play
    "kinplay.ladders.tasks.*": {"queue": "deadlines"},  # a challenge's result: game play
}
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {"task": "kinplay.clocks.tasks.sweep_deadlines", "schedule": SWEEP_SECONDS,
                        "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    "sweep-outbox": {"task": "kinplay.notifications.tasks.relay_outbox", "schedule": SWEEP_SECONDS,
                     "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    # Held mail (quiet hours, digest intervals) goes out within a minute of being allowed.
    "send-digests": {"task": "kinplay.notifications.tasks.send_digests", "schedule": 60.0, "options": {"expires": 60}},
    "end-vacations": {"task": "kinplay.clocks.tasks.end_vacations", "schedule": 60, "options": {"expires": 60}},
    "sweep-tournaments": {"task": "kinplay.tournaments.tasks.sweep_tournaments", "schedule": SWEEP_SECONDS,
                          "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    "sweep-leagues": {"task": "kinplay.leagues.tasks.sweep_leagues", "schedule": SWEEP_SECONDS,
                      "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    "sweep-ladders": {"task": "kinplay.ladders.tasks.sweep_ladders", "schedule": SWEEP_SECONDS,
                      "options": {"expires": max(SWEEP_SECONDS * 2, 10)}},
    "compact-streams": {"task": "games.tasks.compact_streams", "schedule": 3600.0, "options": {"expires": 3600}},
}
# A game over for this long has its events compacted into one row (games.store.compact): after
# its ratings, standings and rematch, when nothing but a replay reads them.
COMPACT_AFTER_HOURS = env.float("COMPACT_AFTER_HOURS", 24.0)
# A task taken by a worker that dies is handed out again (the sweeps are idempotent).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Every node may run beat; one schedules at a time (kinplay.clocks.beat): it renews its lease
# every BEAT_LEASE_RENEW seconds, and another takes over at most BEAT_LEASE_SECONDS after it died.
CELERY_BEAT_SCHEDULER = "kinplay.clocks.beat:LeasedScheduler"
BEAT_LEASE_SECONDS = env.float("BEAT_LEASE_SECONDS", 20.0)
BEAT_LEASE_RENEW = env.float("BEAT_LEASE_RENEW", 5.0)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# Email: EMAIL_URL (smtp://user:pass@host:port, consolemail://, filemail://...) or the usual
# EMAIL_HOST/EMAIL_PORT settings; by default mail is written to var/mail as files.
if env.str("EMAIL_URL", ""):
    vars().update(env.email_url("EMAIL_URL"))
elif env.str("EMAIL_HOST", ""):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env.str("EMAIL_HOST")
    EMAIL_PORT = env.int("EMAIL_PORT", 25)
    EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", False)
else:
    EMAIL_BACKEND = "kinplay.infra.mailfiles.EmailBackend"  # Django's, a file per batch whatever the threads
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")
# Every SMTP step is bounded: a hung mail server delays only the email queue, and not for ever.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", 20)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "kinplay <turns@kinplay.local>")
# Replies to turn emails go to MAIL_REPLY_ADDRESS with a signed "+token" (moves by email);
# inbound mail arrives by `manage.py receive_mail` (an MTA pipe) or an anymail webhook.
MAIL_REPLY_ADDRESS = env.str("MAIL_REPLY_ADDRESS", "play@kinplay.local")
# Every email's envelope sender is MAIL_BOUNCE_ADDRESS with a signed "+token" (VERP): delivery
# reports come back to it, and MAIL_HARD_BOUNCES hard bounces stop the mail to an address
# (kinplay.notifications.bounces).
MAIL_BOUNCE_ADDRESS = env.str("MAIL_BOUNCE_ADDRESS", "bounces@" + (parseaddr(DEFAULT_FROM_EMAIL)[1].rpartition("@")[2] or "kinplay.local"))
MAIL_HARD_BOUNCES = env.int("MAIL_HARD_BOUNCES", 3)
# Inbound mail security (docs/email.md#how-a-reply-is-checked). The token key defaults to one derived from
# SECRET_KEY with its own salt (kinplay.notifications.tokens).
MAIL_TOKEN_KEY = env.str("MAIL_TOKEN_KEY", "")
MAIL_TOKEN_MAX_AGE_DAYS = env.int("MAIL_TOKEN_MAX_AGE_DAYS", 30)
MAIL_AUTHSERV_ID = env.list("MAIL_AUTHSERV_ID", default=[])  # whose Authentication-Results count
MAIL_VERIFY_DKIM = env.bool("MAIL_VERIFY_DKIM", False)  # verify DKIM ourselves (DNS lookups)
MAIL_TRUST_UNAUTHENTICATED = env.bool("MAIL_TRUST_UNAUTHENTICATED", False)  # development only
MAIL_ANSWERS_PER_HOUR = env.int("MAIL_ANSWERS_PER_HOUR", 10)  # refusals only: a loop fuse (notifications.loops)
ANYMAIL = {"WEBHOOK_SECRET": env.str("ANYMAIL_WEBHOOK_SECRET", "")}
# Web Push (kinplay.notifications.push): the VAPID key pair (base64url: the raw 32-byte private key,
# the 65-byte public point), from the environment, else the pair `make run` generated into var/
# (bin/vapid-keys); with neither, push is off.
_vapid_file = VAR_DIR / "vapid.json"
_vapid = json.loads(_vapid_file.read_text()) if _vapid_file.exists() and not env.str("VAPID_PRIVATE_KEY", "") else {}
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", "") or _vapid.get("private_key", "")
VAPID_PUBLIC_KEY = env.str("VAPID_PUBLIC_KEY", "") or _vapid.get("public_key", "")
VAPID_SUBJECT = env.str("VAPID_SUBJECT", "") or f"mailto:{parseaddr(DEFAULT_FROM_EMAIL)[1]}"  # whom push services write to

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # orjson (api/renderers.py); the browsable API as DRF's default.
    "DEFAULT_RENDERER_CLASSES": ["api.renderers.JSONRenderer", "rest_framework.renderers.BrowsableAPIRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.ContentNegotiation",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.handler",
    # Per address for strangers, per player for players; stricter scopes for the sign-in
    # endpoints (each failed password check costs half a CPU-second) and for moves.
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.AnonThrottle", "api.throttles.UserThrottle"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],  # the API reads JSON only (415 otherwise)
    "NUM_PROXIES": PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("THROTTLE_ANON", "120/min"),
        "user": env.str("THROTTLE_USER", "1200/min"),
        "auth": env.str("THROTTLE_AUTH", "10/min"),
        "moves": env.str("THROTTLE_MOVES", "240/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "kinplay API",
    "DESCRIPTION": (BASE_DIR / "api" / "DESCRIPTION.md").read_text(),  # /api/docs/' introduction: how to play a move
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One name for a choice set used twice (a seat's standing answer; check --deploy warns otherwise).
    "ENUM_NAME_OVERRIDES": {"StandingAnswerEnum": ["ask", "unable", "always"]},
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "api.schema.text_without_nul"],
}

# Game clocks (docs/architecture.md#time).
DEFAULT_PER_MOVE_SECONDS = 3 * 24 * 3600
MAX_PER_MOVE_SECONDS = 90 * 24 * 3600
# Bots answer inside a request for at most this many steps; the worker plays the rest.
INLINE_BOT_STEPS = env.int("INLINE_BOT_STEPS", 50)
VACATION_DAYS_PER_YEAR = env.int("VACATION_DAYS_PER_YEAR", 30)  # kinplay/clocks/vacation.py
SNAPSHOT_EVERY = 50
STATE_CACHE_SIZE = env.int("STATE_CACHE_SIZE", 512)  # latest game states kept per process (games/store.py)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "WARNING")},
    "loggers": {"kinplay": {"level": env.str("LOG_LEVEL", "INFO")}},
}
