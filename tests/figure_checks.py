"""A figure a test built, opened: a PNG that decodes, of a plausible size, not blank."""

from __future__ import annotations

from pathlib import Path


def assert_drawn(png: str | Path, *, min_size: tuple[int, int] = (300, 200)) -> None:
    """``png`` decodes as an image at least ``min_size`` (width, height) pixels and is not
    blank: more than one colour, and more than 2% of its pixels differ from the most
    common one (the background)."""
    import numpy as np
    from matplotlib.image import imread

    pixels = imread(str(png))
    height, width = pixels.shape[:2]
    assert width >= min_size[0] and height >= min_size[1], f"{png}: {width}x{height} pixels"
    flat = pixels.reshape(height * width, -1)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    assert len(colours) > 1, f"{png}: one colour"
    drawn = 1 - counts.max() / counts.sum()
    assert drawn > 0.02, f"{png}: only {drawn:.1%} of the pixels differ from the background"
