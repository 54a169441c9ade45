"""What a page says and shows: each module one extension, named in ``_config.yml``."""
