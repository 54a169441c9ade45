"""The theme, lean and accessible: each module one extension, named in ``_config.yml``."""
