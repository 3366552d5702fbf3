"""Does attnkit.png write PNGs that a real decoder reads back pixel for pixel?"""
import io

import numpy as np
import pytest
from PIL import Image

from attnkit import ShapeError
from attnkit.png import PNG_SIGNATURE, encode_rgb


def decode(data: bytes) -> np.ndarray:
    picture = Image.open(io.BytesIO(data))
    assert picture.mode == "RGB"
    return np.asarray(picture)


def test_round_trip_through_pillow():
    """Is a random RGB image decoded by Pillow exactly as it was encoded?"""
    pixels = np.random.default_rng(0).integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    data = encode_rgb(pixels)
    assert data.startswith(PNG_SIGNATURE)
    np.testing.assert_array_equal(decode(data), pixels)


def test_rgb_view_of_an_rgba_buffer():
    """Does the RGB view of an RGBA canvas buffer (strided, not contiguous) encode its colours?"""
    rgba = np.random.default_rng(1).integers(0, 256, size=(4, 6, 4), dtype=np.uint8)
    np.testing.assert_array_equal(decode(encode_rgb(rgba[..., :3])), rgba[..., :3])


def test_flat_figures_compress():
    """Is a mostly white 360x1100 frame far smaller than its raw pixels?"""
    pixels = np.full((360, 1100, 3), 255, np.uint8)
    pixels[100:200, 100:300] = (68, 1, 84)
    assert len(encode_rgb(pixels)) < 0.02 * pixels.nbytes


@pytest.mark.parametrize("pixels, message", [
    (np.zeros((2, 2, 4), np.uint8), "pixels.shape=(2, 2, 4), dtype=uint8"),
    (np.zeros((2, 2, 3)), "pixels.shape=(2, 2, 3), dtype=float64"),
])
def test_refuses_what_is_not_rgb_bytes(pixels, message):
    """Do RGBA or float arrays raise ShapeError naming the shape and dtype?"""
    with pytest.raises(ShapeError) as info:
        encode_rgb(pixels)
    assert str(info.value) == f"encode_rgb needs uint8 pixels [H, W, 3]: {message}"
