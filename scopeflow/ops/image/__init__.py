"""Image ops: resizing, codecs (with ``image_formats.py``'s header checks) and transforms."""
