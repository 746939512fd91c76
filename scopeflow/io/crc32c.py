"""CRC-32C (Castagnoli) and TensorFlow's masked form of it.

Every checksum TensorFlow stores (SSTable blocks, tensor-bundle entries, TFRecord
framing) is a masked CRC-32C, little-endian. The CRC itself comes from ``google-crc32c``
(C, several GB/s); a table-driven fallback keeps scopeflow working where its wheel is
missing, just slowly.

>>> hex(value(b"123456789"))
'0xe3069283'
>>> hex(mask(0xE3069283)), hex(unmask(mask(0xE3069283)))
('0xc78ab0e5', '0xe3069283')
>>> extend(value(b"1234"), b"56789") == value(b"123456789")
True
"""

_MASK_DELTA = 0xA282EAD8

try:
    import google_crc32c as _impl

    def value(data):
        """CRC-32C of ``data`` (bytes-like)."""
        return _impl.value(bytes(data) if isinstance(data, memoryview) else data)

    def extend(crc, data):
        """CRC-32C of the bytes whose CRC is ``crc`` followed by ``data``."""
        return _impl.extend(crc, bytes(data) if isinstance(data, memoryview) else data)

except ImportError:  # pragma: no cover - exercised only without the wheel
    def _table():
        table = []
        for i in range(256):
            crc = i
            for _ in range(8):
                crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
            table.append(crc)
        return table

    _TABLE = _table()

    def extend(crc, data):
        crc ^= 0xFFFFFFFF
        table = _TABLE
        for byte in bytes(data):
            crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
        return crc ^ 0xFFFFFFFF

    def value(data):
        return extend(0, data)


def mask(crc):
    """TensorFlow's stored form: rotate right by 15 bits, then add a constant."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    """Inverse of :func:`mask`."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_value(data):
    """``mask(value(data))``: what TensorFlow writes next to ``data``."""
    return mask(value(data))
