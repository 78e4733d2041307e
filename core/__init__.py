"""RadConcord core: all logic, no UI. Importing it applies the offline defaults."""

from core import settings as _settings

_settings.apply_offline_defaults()
