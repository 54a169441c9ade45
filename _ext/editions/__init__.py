"""The Chinese edition and the links between the editions: each module one extension, named in
``_config.yml``."""
