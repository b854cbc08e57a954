"""An independent reader of the service's PSD exports (psd-tools), for test/psd/psd-file.test.ts.

Usage: read-psd.py FILE.psd PHOTO.rgb PHOTO.jpg
PHOTO.rgb is the photo as the service decodes it (8-bit RGB, the canvas's size, orientation
applied); PHOTO.jpg the submitted file, decoded here by Pillow as a second opinion.
Prints one JSON object: the document's structure, its metadata, and pixel comparisons.
"""
import io
import json
import sys
import xml.etree.ElementTree as ET

import numpy as np
from PIL import Image, ImageCms, ImageOps
from psd_tools import PSDImage
from psd_tools.constants import Resource

PV = '{https://ns.photo-verification.eu/psd-export/1.0/}'
WORK_SIDE = 1024  # SSIM is compared on the analysis's working grid (long side), area-averaged


def luma(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def shrink(img):
    """Area-average an HxWxC float array so its long side is at most WORK_SIDE."""
    h, w = img.shape[:2]
    f = max(1, int(np.ceil(max(h, w) / WORK_SIDE)))
    h2, w2 = h // f, w // f
    return img[: h2 * f, : w2 * f].reshape(h2, f, w2, f, *img.shape[2:]).mean(axis=(1, 3))


def box(a, r):
    """Mean over a (2r+1)^2 window, valid region only (summed-area table)."""
    s = np.pad(a, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    k = 2 * r + 1
    return (s[k:, k:] - s[:-k, k:] - s[k:, :-k] + s[:-k, :-k]) / (k * k)


def ssim(x, y, mask, r=3):
    """Mean SSIM (Wang et al. 2004, 7x7 uniform window, L=255) over windows fully inside mask."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = box(x, r), box(y, r)
    vx, vy = box(x * x, r) - mx * mx, box(y * y, r) - my * my
    cxy = box(x * y, r) - mx * my
    s = ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    inside = box(mask.astype(np.float64), r) > 0.999
    return float(s[inside].mean()) if inside.any() else 0.0


def main():
    psd_path, rgb_path, jpg_path = sys.argv[1:4]
    psd = PSDImage.open(psd_path)
    w, h = psd.width, psd.height
    out = {
        'width': w,
        'height': h,
        'color_mode': int(psd.color_mode),
        'depth': psd.depth,
        'layers': [{'name': l.name, 'visible': l.visible, 'bbox': list(l.bbox), 'kind': l.kind} for l in psd],
    }
    icc = psd.image_resources.get_data(Resource.ICC_PROFILE)
    out['icc_description'] = ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(icc))).strip() if icc else None
    xmp = psd.image_resources.get_data(Resource.XMP_METADATA)
    facts = {}
    if xmp:
        for el in ET.fromstring(xmp.decode('utf-8').split('?>', 1)[1].rsplit('<?xpacket', 1)[0]).iter():
            if el.tag.startswith(PV):
                facts[el.tag[len(PV):]] = el.text
    out['xmp'] = facts

    photo = np.fromfile(rgb_path, dtype=np.uint8).reshape(h, w, 3)
    composite = np.asarray(psd.topil().convert('RGB'))
    out['composite_max_diff'] = int(np.abs(composite.astype(np.int16) - photo).max())
    pillow = np.asarray(ImageOps.exif_transpose(Image.open(jpg_path)).convert('RGB'))
    out['pillow_shape'] = list(pillow.shape)
    if pillow.shape == photo.shape:
        out['composite_vs_pillow_mean_diff'] = float(np.abs(composite.astype(np.float64) - pillow).mean())

    by_name = {l.name: np.asarray(l.topil()) for l in psd}
    layers = list(by_name.values())
    out['photo_layer_max_diff'] = int(np.abs(layers[0][..., :3].astype(np.int16) - photo).max())
    rendition = layers[1]
    covered = rendition[..., 3] == 255
    out['rendition_coverage'] = float(covered.mean())
    work_photo = luma(shrink(photo.astype(np.float64)))
    work_mask = shrink(covered.astype(np.float64)[..., None])[..., 0] > 0.999
    out['rendition_ssim'] = ssim(work_photo, luma(shrink(rendition[..., :3].astype(np.float64))), work_mask)
    # A control: the same rendition displaced by 2% of the canvas width, as a registration that
    # missed would leave it. The threshold must separate it from the real one.
    d = max(1, round(0.02 * w))
    shifted = np.roll(rendition, d, axis=1)
    shifted_mask = np.roll(covered, d, axis=1)
    shifted_mask[:, :d] = False
    out['shifted_rendition_ssim'] = ssim(work_photo, luma(shrink(shifted[..., :3].astype(np.float64))), shrink(shifted_mask.astype(np.float64)[..., None])[..., 0] > 0.999)
    heat = layers[2]
    out['heatmap_opaque'] = bool((heat[..., 3] == 255).all()) if heat.shape[2] == 4 else True
    out['heatmap_mean_rgb'] = [float(v) for v in heat[..., :3].reshape(-1, 3).mean(axis=0)]
    print(json.dumps(out))


main()
