"""DICOM slices for the edit-review judge: read with pydicom, window, send as PNG.

A review dataset may list ``.dcm`` files in its ``images`` column instead of
PNG/JPEG (RADAR works from CT series). Each slice is converted at call time,
in memory, and nothing is written to disk:

1. pixel values through the modality LUT (``RescaleSlope`` / ``RescaleIntercept``:
   Hounsfield units for CT);
2. the file's first ``WindowCenter`` / ``WindowWidth`` when it has them, else
   the slice's own minimum to maximum; DICOM's linear window (PS3.3 C.11.2.1.2)
   maps the window to 0-255;
3. ``MONOCHROME1`` (white = low) inverted so every image is dark = low;
4. one frame (the middle one of a multi-frame file), greyscale PNG.

pydicom decodes uncompressed and RLE transfer syntaxes by itself; a
compressed series (JPEG, JPEG 2000) needs one of pydicom's optional pixel
handlers (e.g. ``pylibjpeg``), and without it the error says so.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

DICOM_SUFFIXES = (".dcm", ".dicom")


def is_dicom_path(path: str | Path) -> bool:
    return Path(path).suffix.lower() in DICOM_SUFFIXES


def _first(value) -> float | None:
    if value is None:
        return None
    try:
        return float(value[0] if hasattr(value, "__len__") and not isinstance(value, str) else value)
    except (TypeError, ValueError, IndexError):
        return None


def window_to_uint8(values: np.ndarray, center: float | None, width: float | None) -> np.ndarray:
    """DICOM's linear VOI window (PS3.3 C.11.2.1.2.1) onto 0-255; min-max when no usable window."""
    values = values.astype(np.float64)
    if center is None or width is None or width < 1:
        low, high = float(values.min()), float(values.max())
        if high <= low:
            return np.zeros(values.shape, dtype=np.uint8)
        scaled = (values - low) / (high - low)
    else:
        scaled = ((values - (center - 0.5)) / (width - 1)) + 0.5
    return np.clip(np.rint(scaled * 255), 0, 255).astype(np.uint8)


def dicom_png(path: str | Path) -> bytes:
    """One DICOM slice as greyscale PNG bytes (windowed as described above)."""
    import pydicom
    from PIL import Image

    try:
        ds = pydicom.dcmread(str(path))
        pixels = ds.pixel_array
    except Exception as exc:  # pydicom raises several types for unreadable or undecodable files
        raise ValueError(f"cannot read DICOM slice '{path}': {exc}") from exc
    if pixels.ndim == 3 and getattr(ds, "SamplesPerPixel", 1) == 1:  # multi-frame: the middle frame
        pixels = pixels[pixels.shape[0] // 2]
    if pixels.ndim != 2:
        raise ValueError(f"DICOM slice '{path}' is not a greyscale image (shape {pixels.shape})")
    slope = _first(getattr(ds, "RescaleSlope", None)) or 1.0
    intercept = _first(getattr(ds, "RescaleIntercept", None)) or 0.0
    values = pixels.astype(np.float64) * slope + intercept
    grey = window_to_uint8(values, _first(getattr(ds, "WindowCenter", None)),
                           _first(getattr(ds, "WindowWidth", None)))
    if str(getattr(ds, "PhotometricInterpretation", "")).upper() == "MONOCHROME1":
        grey = 255 - grey
    buffer = io.BytesIO()
    Image.fromarray(grey, mode="L").save(buffer, format="PNG")
    return buffer.getvalue()
