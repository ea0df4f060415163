#!/usr/bin/env python3
"""Make the development set for "Which xkcd is this?" (issue 36).

The feature identifies a comic from a picture of it: OCR the picture with
Tesseract, search the words read against the index, and fall back to a
perceptual hash for comics without words. A picture a user has is rarely the
published file. It is a crop, a smaller copy, a re-compressed JPEG, a
screenshot of a chat or a slide, a tilted scan, or a phone photo of a screen.
This script makes such pictures from the real comic images, deterministically.

Sources
-------
The only inputs are the real comic images in shared/images/ of the project
(`../shared/images` beside the project): 15 files published at imgs.xkcd.com. Their
provenance, checksums and licence (CC BY-NC 2.5, Randall Munroe) are in
SOURCES.md beside them. Every file is named `<comic number>-<original name>`,
and the comic number in the manifest is taken from that prefix.

The set this script writes is the development set: the only input to tune the
identifier on (OCR settings, preprocessing, score thresholds, hash distances).
Do not tune on anything else, and keep any held-out check separate from it.

Output
------
For every source image (the first frame of an animated GIF), eight variants:

  crop1       one panel (panels found from white gutters or from panel
              border lines), else a random 40-70 % region
  crop2       two neighbouring panels, else a random 40-70 % region
  resize      the whole comic scaled to 40-60 %
  jpeg        the whole comic as JPEG, quality 30-60
  chat        the comic inside a fake chat window screenshot (title bar,
              chat lines with avatars above and below, message box)
  slide       the comic on a fake presentation slide (title, bullets, footer)
  rotate      rotated 2-5 degrees either way, corners filled with a
              background colour
  photo       a phone-photo look: comic on a surface, slight perspective
              warp, uneven light, brightness/contrast change, Gaussian blur,
              noise, saved as JPEG

and manifest.tsv with the columns file, comic, transform, source, params
(params records the random choices, for reading failures).

Screenshots are rendered by headless Chromium when `chromium` is on PATH
(`--renderer auto`, the default) and by Pillow's text drawing otherwise; both
draw the same layout, and the renderer used is named in params. Chromium
renders text and scales the comic as a browser does, which is closer to real
screenshots; Pillow needs nothing but the DejaVu fonts (or Pillow's own).

Determinism
-----------
Every variant has its own random generator, seeded from (--seed, source file
name, transform name). The same seed gives the same files with the same
Pillow, numpy, libjpeg and (for screenshots) Chromium; adding a source image
or a transform does not change the other variants.

Usage (Pillow and numpy from PyPI, in a venv):
  python3 -m venv "$HOME/.cache/xkcd-search-build/identify-venv"
  "$HOME/.cache/xkcd-search-build/identify-venv/bin/"pip install pillow numpy
  "$HOME/.cache/xkcd-search-build/identify-venv/bin/"python make-identify-set.py \
      --images ../shared/images --output .build/identify-set --seed 36
"""

from __future__ import annotations

import argparse
import hashlib
import html
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageFont

IMAGE_SUFFIXES = {".png", ".gif", ".jpg", ".jpeg", ".webp"}
TRANSFORMS = ["crop1", "crop2", "resize", "jpeg", "chat", "slide", "rotate", "photo"]

# A pixel darker than this (0-255 grey) is ink; white gutters have none.
INK_LEVEL = 200


# --------------------------------------------------------------------------
# Loading and randomness
# --------------------------------------------------------------------------

def load_comic(path: Path) -> Image.Image:
    """The image as RGB on white: first frame of a GIF, transparency flattened."""
    with Image.open(path) as image:
        image.seek(0)
        rgba = image.convert("RGBA")
    flat = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    flat.alpha_composite(rgba)
    return flat.convert("RGB")


def comic_number(path: Path) -> int:
    match = re.match(r"(\d+)-", path.name)
    if not match:
        raise ValueError(f"{path.name}: file name does not start with '<comic number>-'")
    return int(match.group(1))


def rng_for(seed: int, source_name: str, transform: str) -> np.random.Generator:
    """An independent, reproducible generator for one variant of one image."""
    digest = hashlib.sha256(f"{seed}:{source_name}:{transform}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return float(rng.uniform(low, high))


def pick(rng: np.random.Generator, items):
    return items[int(rng.integers(len(items)))]


# --------------------------------------------------------------------------
# Panel detection
# --------------------------------------------------------------------------
# xkcd panels are usually separated by white gutters that run the whole
# height of a row of panels (and rows by gutters that run the whole width).
# A one-level XY cut finds them: split the comic into rows at blank pixel
# rows, then each row into cells at blank pixel columns. When a heading runs
# across the gutters (927 "Standards"), no blank column exists; then the
# panels are found between long vertical border lines instead. Cells smaller
# than 12 % of the comic either way (captions, stray marks) are not panels.

@dataclass
class Box:
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    def union(self, other: "Box") -> "Box":
        return Box(min(self.left, other.left), min(self.top, other.top),
                   max(self.right, other.right), max(self.bottom, other.bottom))

    def padded(self, pad: int, width: int, height: int) -> "Box":
        return Box(max(0, self.left - pad), max(0, self.top - pad),
                   min(width, self.right + pad), min(height, self.bottom + pad))

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.left, self.top, self.right, self.bottom)


def content_runs(blank: np.ndarray, min_gutter: int) -> list[tuple[int, int]]:
    """[start, end) runs of non-blank lines separated by >= min_gutter blank lines."""
    filled = np.flatnonzero(~blank)
    if filled.size == 0:
        return []
    runs = []
    start = previous = int(filled[0])
    for index in filled[1:]:
        index = int(index)
        if index - previous - 1 >= min_gutter:
            runs.append((start, previous + 1))
            start = index
        previous = index
    runs.append((start, previous + 1))
    return runs


def longest_ink_run(ink: np.ndarray) -> tuple[int, int]:
    """[start, end) of the longest run of consecutive ink pixels in a 1-D array."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], ink.astype(np.int8), [0]))))
    if edges.size == 0:
        return (0, 0)
    longest = int(np.argmax(edges[1::2] - edges[0::2]))
    return (int(edges[2 * longest]), int(edges[2 * longest + 1]))


def border_lines(band: np.ndarray) -> list[Box]:
    """Vertical ink lines covering >= 60 % of the band's height (panel borders).

    Each line is a Box: its columns and the rows its longest ink run spans.
    """
    height = band.shape[0]
    runs = [longest_ink_run(band[:, column]) for column in range(band.shape[1])]
    is_line = np.array([end - start >= 0.6 * height for start, end in runs])
    lines = []
    for left, right in content_runs(~is_line, 1):
        lines.append(Box(left, min(runs[c][0] for c in range(left, right)),
                         right, max(runs[c][1] for c in range(left, right))))
    return lines


def find_panels(image: Image.Image) -> list[tuple[int, Box]]:
    """(row number, panel box) in reading order: rows top to bottom, left to right."""
    ink = np.asarray(image.convert("L")) < INK_LEVEL
    height, width = ink.shape
    min_gutter = max(2, round(width / 250))
    min_width = max(48, 0.12 * width)
    min_height = max(48, 0.12 * height)

    panels: list[tuple[int, Box]] = []
    blank_rows = ink.sum(axis=1) <= max(1, int(width * 0.002))
    for row, (top, bottom) in enumerate(content_runs(blank_rows, min_gutter)):
        band = ink[top:bottom]
        blank_columns = band.sum(axis=0) <= max(1, int((bottom - top) * 0.002))
        cells = []
        for left, right in content_runs(blank_columns, min_gutter):
            filled_rows = np.flatnonzero(band[:, left:right].any(axis=1))
            cells.append(Box(left, top + int(filled_rows[0]),
                             right, top + int(filled_rows[-1]) + 1))
        if len(cells) == 1:
            # No white gutter (a heading runs across them): a panel is the
            # space between two border lines at least a panel wide apart.
            lines = border_lines(band)
            between = [Box(a.left, top + max(a.top, b.top), b.right, top + min(a.bottom, b.bottom))
                       for a, b in zip(lines, lines[1:]) if b.left - a.right >= min_width]
            if len(between) >= 2:
                cells = between
        panels += [(row, box) for box in cells
                   if box.width >= min_width and box.height >= min_height]
    return panels


def neighbour_pairs(panels: list[tuple[int, Box]]) -> list[tuple[int, int]]:
    """Index pairs of panels next to each other in a row, else one above the other."""
    pairs = [(i, i + 1) for i in range(len(panels) - 1) if panels[i][0] == panels[i + 1][0]]
    if not pairs:
        pairs = [(i, j) for i in range(len(panels)) for j in range(i + 1, len(panels))
                 if panels[j][0] == panels[i][0] + 1
                 and min(panels[i][1].right, panels[j][1].right)
                 > max(panels[i][1].left, panels[j][1].left)]
    return pairs


def random_region(rng: np.random.Generator, width: int, height: int) -> Box:
    """A random region covering 40-70 % of the width and of the height."""
    region_width = round(width * uniform(rng, 0.40, 0.70))
    region_height = round(height * uniform(rng, 0.40, 0.70))
    left = int(rng.integers(0, width - region_width + 1))
    top = int(rng.integers(0, height - region_height + 1))
    return Box(left, top, left + region_width, top + region_height)


# --------------------------------------------------------------------------
# Simple transforms: crops, resize, JPEG, rotation
# --------------------------------------------------------------------------

def make_crop(image: Image.Image, rng: np.random.Generator, panel_count: int):
    """One panel (panel_count 1) or two neighbouring panels (2), else a random region."""
    width, height = image.size
    panels = find_panels(image)
    pairs = neighbour_pairs(panels)
    # Two panels need at least three, or the "crop" is nearly the whole comic.
    if panel_count == 1 and len(panels) >= 2:
        index = int(rng.integers(len(panels)))
        box = panels[index][1]
        how = f"panel {index + 1}/{len(panels)}"
    elif panel_count == 2 and len(panels) >= 3 and pairs:
        first, second = pairs[int(rng.integers(len(pairs)))]
        box = panels[first][1].union(panels[second][1])
        how = f"panels {first + 1}+{second + 1}/{len(panels)}"
    else:
        box = random_region(rng, width, height)
        how = f"random region ({len(panels)} panels found)"
    if not how.startswith("random"):
        box = box.padded(int(rng.integers(0, 9)), width, height)
    return image.crop(box.as_tuple()), f"{how} box={box.as_tuple()}"


RESAMPLERS = {
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos": Image.Resampling.LANCZOS,
    "box": Image.Resampling.BOX,
}


def make_resize(image: Image.Image, rng: np.random.Generator):
    scale = uniform(rng, 0.40, 0.60)
    name = pick(rng, sorted(RESAMPLERS))
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, RESAMPLERS[name]), f"scale={scale:.3f} {name} size={size}"


def make_jpeg_params(rng: np.random.Generator):
    return int(rng.integers(30, 61))


def make_rotate(image: Image.Image, rng: np.random.Generator):
    angle = uniform(rng, 2.0, 5.0) * pick(rng, [-1, 1])
    fills = {"white": (255, 255, 255), "grey": (228, 228, 228), "black": (24, 24, 24)}
    fill_name = pick(rng, sorted(fills))
    rotated = image.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True,
                           fillcolor=fills[fill_name])
    return rotated, f"angle={angle:+.2f} fill={fill_name}"


# --------------------------------------------------------------------------
# Photo-like transform
# --------------------------------------------------------------------------

def perspective_coefficients(output_corners, input_corners):
    """Coefficients for Image.transform(PERSPECTIVE): output point -> input point."""
    rows, values = [], []
    for (x, y), (u, v) in zip(output_corners, input_corners):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        values += [u, v]
    return np.linalg.solve(np.array(rows, dtype=float), np.array(values, dtype=float)).tolist()


def make_photo(image: Image.Image, rng: np.random.Generator):
    """A phone photo of the comic on a screen or paper."""
    width, height = image.size
    # 1. The comic on a surface (monitor bezel, desk, paper) with a margin.
    grey = int(rng.integers(40, 200))
    surface = tuple(int(np.clip(grey + t, 0, 255)) for t in rng.integers(-20, 21, size=3))
    margin = round(max(width, height) * uniform(rng, 0.05, 0.10))
    canvas = Image.new("RGB", (width + 2 * margin, height + 2 * margin), surface)
    canvas.paste(image, (margin, margin))

    # 2. Slight perspective: each corner of the view moves by up to 4 %.
    canvas_w, canvas_h = canvas.size
    corners = [(0, 0), (canvas_w, 0), (canvas_w, canvas_h), (0, canvas_h)]
    jitter = 0.04
    moved = [(x + uniform(rng, -jitter, jitter) * canvas_w,
              y + uniform(rng, -jitter, jitter) * canvas_h) for x, y in corners]
    coefficients = perspective_coefficients(corners, moved)
    photo = canvas.transform(canvas.size, Image.Transform.PERSPECTIVE, coefficients,
                             resample=Image.Resampling.BICUBIC, fillcolor=surface)

    # 3. Exposure: brightness and contrast, a slight colour cast.
    brightness = uniform(rng, 0.75, 1.10)
    contrast = uniform(rng, 0.70, 0.95)
    photo = ImageEnhance.Brightness(photo).enhance(brightness)
    photo = ImageEnhance.Contrast(photo).enhance(contrast)
    pixels = np.asarray(photo, dtype=np.float32)
    cast = rng.uniform(0.92, 1.05, size=3).astype(np.float32)

    # 4. Uneven light: a linear falloff across the frame in a random direction.
    direction = uniform(rng, 0, 2 * np.pi)
    falloff = uniform(rng, 0.08, 0.25)
    ys, xs = np.mgrid[0:canvas_h, 0:canvas_w].astype(np.float32)
    ramp = (xs / canvas_w - 0.5) * np.cos(direction) + (ys / canvas_h - 0.5) * np.sin(direction)
    light = 1.0 - falloff * (ramp + 0.5)
    pixels = pixels * cast[None, None, :] * light[:, :, None]
    photo = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))

    # 5. Focus blur, then sensor noise.
    blur = uniform(rng, 0.6, 1.5)
    photo = photo.filter(ImageFilter.GaussianBlur(blur))
    noise_sigma = uniform(rng, 3.0, 8.0)
    noise = rng.normal(0.0, noise_sigma, size=(canvas_h, canvas_w, 3)).astype(np.float32)
    photo = Image.fromarray(np.clip(np.asarray(photo, dtype=np.float32) + noise, 0, 255)
                            .astype(np.uint8))

    quality = int(rng.integers(75, 93))
    params = (f"margin={margin} surface={surface} brightness={brightness:.2f} "
              f"contrast={contrast:.2f} light_falloff={falloff:.2f} blur={blur:.2f} "
              f"noise_sigma={noise_sigma:.1f} jpeg_quality={quality}")
    return photo, quality, params


# --------------------------------------------------------------------------
# Screenshots: one layout, two renderers
# --------------------------------------------------------------------------
# A layout is a list of positioned elements (rectangles, one-line texts and
# the comic). render_with_pillow draws it with Pillow; render_with_chromium
# writes it as absolutely positioned HTML and screenshots it headless.

@dataclass
class Element:
    kind: str                      # "rect", "text" or "comic"
    x: int
    y: int
    width: int = 0
    height: int = 0
    colour: str = "#000000"
    text: str = ""
    size: int = 15                 # font size in px
    bold: bool = False
    radius: int = 0


@dataclass
class Layout:
    width: int
    height: int
    background: str
    elements: list[Element] = field(default_factory=list)


NAMES = ["Alex", "Sam", "Priya", "Jordan", "Mei", "Chris", "Tomasz", "Dana", "Ravi", "Kim"]
CHANNELS = ["#random", "#general", "#dev-chat", "#offtopic", "#backend", "#memes"]
CHAT_LINES = [
    "lol this is exactly what happened yesterday",
    "there is always a relevant xkcd",
    "ok who broke the build again",
    "can someone review my PR before lunch?",
    "this is so you",
    "I feel personally attacked",
    "anyone know which one this is? can't find it",
    "sending this to the whole team",
    "brb coffee",
    "the deploy is green now, thanks everyone",
    "hahaha",
    "this one never gets old",
    "meeting moved to 3pm btw",
    "saw this on my feed and thought of you",
    "printing this for the office wall",
    "same energy as our standup today",
    "wait is this real",
    "+1",
]
SLIDE_TITLES = [
    "Lessons learned", "Why this matters", "Q3 retrospective", "A cautionary tale",
    "Before we start", "Best practices", "Onboarding: culture", "Questions?",
]
SLIDE_BULLETS = [
    "Validate every input at the boundary",
    "Measure before you optimise",
    "Automate the boring parts",
    "Write it down once, link it often",
    "Small changes, shipped often",
    "Nobody reads the manual",
    "Keep the feedback loop short",
    "Plan for the failure cases",
    "Naming things is still hard",
]
SLIDE_FOOTERS = ["Team offsite 2024", "Engineering all-hands", "Intro to security",
                 "Internal training - do not distribute", "Lightning talk"]

THEMES = {
    # name: (background, text, muted text, title bar, title bar text, input box)
    "light": ("#ffffff", "#1d1c1d", "#616061", "#3f0e40", "#ffffff", "#f4f4f4"),
    "dark": ("#313338", "#dbdee1", "#949ba4", "#1e1f22", "#f2f3f5", "#383a40"),
}
AVATAR_COLOURS = ["#e8912d", "#2bac76", "#1264a3", "#cd2553", "#7c3085", "#36c5f0", "#ecb22e"]


def fit_scale(image: Image.Image, max_width: int, max_height: int) -> float:
    return min(1.0, max_width / image.width, max_height / image.height)


def chat_layout(comic: Image.Image, rng: np.random.Generator) -> tuple[Layout, str]:
    theme_name = pick(rng, sorted(THEMES))
    background, text, muted, bar, bar_text, input_box = THEMES[theme_name]
    width = int(rng.integers(760, 981))
    channel = pick(rng, CHANNELS)
    elements: list[Element] = []

    # Title bar with window buttons and the channel name.
    elements.append(Element("rect", 0, 0, width, 38, bar))
    for i, colour in enumerate(["#ff5f57", "#febc2e", "#28c840"]):
        elements.append(Element("rect", 12 + 20 * i, 13, 12, 12, colour, radius=6))
    elements.append(Element("text", 84, 10, colour=bar_text, text=f"{channel}  |  Team Chat",
                            size=15, bold=True))

    y = 52
    minute = int(rng.integers(0, 50))

    def message(name: str, line: str | None, image: Element | None = None):
        nonlocal y, minute
        avatar = pick(rng, AVATAR_COLOURS)
        elements.append(Element("rect", 16, y, 36, 36, avatar, radius=6))
        elements.append(Element("text", 27, y + 8, colour="#ffffff", text=name[0], size=17,
                                bold=True))
        elements.append(Element("text", 64, y, colour=text, text=name, size=15, bold=True))
        name_width = 9 * len(name) + 14
        minute += int(rng.integers(0, 4))
        elements.append(Element("text", 64 + name_width, y + 2, colour=muted,
                                text=f"10:{minute:02d} AM", size=12))
        y += 22
        if line:
            elements.append(Element("text", 64, y, colour=text, text=line, size=15))
            y += 22
        if image:
            image.x, image.y = 64, y + 4
            elements.append(image)
            y += image.height + 8
        y += 12

    lines = list(rng.permutation(len(CHAT_LINES)))
    above = int(rng.integers(2, 5))
    below = int(rng.integers(1, 4))
    for _ in range(above):
        message(pick(rng, NAMES), CHAT_LINES[int(lines.pop())])
    scale = fit_scale(comic, min(width - 100, 620), 640)
    comic_element = Element("comic", 0, 0, round(comic.width * scale), round(comic.height * scale))
    message(pick(rng, NAMES), CHAT_LINES[int(lines.pop())] if rng.random() < 0.5 else None,
            comic_element)
    for _ in range(below):
        message(pick(rng, NAMES), CHAT_LINES[int(lines.pop())])

    # Message box.
    elements.append(Element("rect", 16, y + 4, width - 32, 44, input_box, radius=8))
    elements.append(Element("text", 30, y + 16, colour=muted, text=f"Message {channel}", size=15))
    height = y + 60
    params = (f"theme={theme_name} canvas={width}x{height} comic_scale={scale:.3f} "
              f"lines_above={above} lines_below={below}")
    return Layout(width, height, background, elements), params


def slide_layout(comic: Image.Image, rng: np.random.Generator) -> tuple[Layout, str]:
    width, height = pick(rng, [(1280, 720), (1024, 768), (1366, 768)])
    dark = rng.random() < 0.3
    background = "#1f2a44" if dark else pick(rng, ["#ffffff", "#f7f5ef", "#eef3f8"])
    ink = "#f5f5f5" if dark else "#222222"
    accent = pick(rng, ["#d9534f", "#2b7bb9", "#4c9a2a", "#e0a100"])
    elements = [
        Element("text", 56, 36, colour=ink, text=pick(rng, SLIDE_TITLES), size=40, bold=True),
        Element("rect", 56, 96, 120, 6, accent),
    ]
    bullets = [SLIDE_BULLETS[int(i)] for i in rng.permutation(len(SLIDE_BULLETS))[:int(rng.integers(2, 5))]]
    side_by_side = comic.width / comic.height < 1.6 and rng.random() < 0.6
    if side_by_side:
        # Bullets on the left, comic on the right half.
        for i, bullet in enumerate(bullets):
            elements.append(Element("text", 56, 140 + 56 * i, colour=ink, text=f"\u2022 {bullet}",
                                    size=22))
        box = (width // 2 - 20, 130, width // 2 - 36, height - 200)
    else:
        # Comic centred under the title, one bullet line under it.
        box = (56, 124, width - 112, height - 230)
    scale = fit_scale(comic, box[2], box[3])
    comic_w, comic_h = round(comic.width * scale), round(comic.height * scale)
    comic_x = box[0] + (box[2] - comic_w) // 2
    elements.append(Element("rect", comic_x - 2, box[1] - 2, comic_w + 4, comic_h + 4, "#999999"))
    elements.append(Element("comic", comic_x, box[1], comic_w, comic_h))
    if not side_by_side:
        elements.append(Element("text", 56, box[1] + comic_h + 24, colour=ink,
                                text=f"\u2022 {bullets[0]}", size=22))
    elements.append(Element("text", 56, height - 40, colour="#888888",
                            text=pick(rng, SLIDE_FOOTERS), size=14))
    elements.append(Element("text", width - 70, height - 40, colour="#888888",
                            text=str(int(rng.integers(2, 40))), size=14))
    params = (f"canvas={width}x{height} dark={dark} side_by_side={side_by_side} "
              f"comic_scale={scale:.3f} bullets={len(bullets)}")
    return Layout(width, height, background, elements), params


FONT_FILES = {
    False: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    True: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
}


def font(size: int, bold: bool):
    try:
        return ImageFont.truetype(FONT_FILES[bold], size)
    except OSError:
        return ImageFont.load_default(size)    # Pillow's own font (Pillow >= 10.1)


def render_with_pillow(layout: Layout, comic: Image.Image) -> Image.Image:
    canvas = Image.new("RGB", (layout.width, layout.height), layout.background)
    draw = ImageDraw.Draw(canvas)
    for element in layout.elements:
        if element.kind == "rect":
            box = (element.x, element.y, element.x + element.width - 1,
                   element.y + element.height - 1)
            draw.rounded_rectangle(box, radius=element.radius, fill=element.colour)
        elif element.kind == "text":
            draw.text((element.x, element.y), element.text, fill=element.colour,
                      font=font(element.size, element.bold))
        elif element.kind == "comic":
            scaled = comic.resize((element.width, element.height), Image.Resampling.BILINEAR)
            canvas.paste(scaled, (element.x, element.y))
    return canvas


def layout_html(layout: Layout, comic_url: str) -> str:
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>",
        "html,body{margin:0;padding:0;overflow:hidden}",
        f"body{{width:{layout.width}px;height:{layout.height}px;background:{layout.background};"
        "position:relative;font-family:'DejaVu Sans',sans-serif}",
        "div,img{position:absolute;box-sizing:border-box}",
        "div.t{white-space:nowrap;line-height:1.2}",
        "</style></head><body>",
    ]
    for e in layout.elements:
        if e.kind == "rect":
            parts.append(f"<div style='left:{e.x}px;top:{e.y}px;width:{e.width}px;"
                         f"height:{e.height}px;background:{e.colour};border-radius:{e.radius}px'>"
                         "</div>")
        elif e.kind == "text":
            weight = "bold" if e.bold else "normal"
            parts.append(f"<div class='t' style='left:{e.x}px;top:{e.y}px;color:{e.colour};"
                         f"font-size:{e.size}px;font-weight:{weight}'>{html.escape(e.text)}</div>")
        elif e.kind == "comic":
            parts.append(f"<img src='{comic_url}' style='left:{e.x}px;top:{e.y}px;"
                         f"width:{e.width}px;height:{e.height}px'>")
    parts.append("</body></html>")
    return "".join(parts)


def render_with_chromium(layout: Layout, comic: Image.Image, chromium: str) -> Image.Image | None:
    """Screenshot of the layout in headless Chromium, or None if that failed."""
    with tempfile.TemporaryDirectory(prefix="identify-shot-") as work:
        work_dir = Path(work)
        comic.save(work_dir / "comic.png")
        page = work_dir / "page.html"
        page.write_text(layout_html(layout, (work_dir / "comic.png").as_uri()), encoding="utf-8")
        shot = work_dir / "shot.png"
        command = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--force-device-scale-factor=1",
            f"--user-data-dir={work_dir / 'profile'}",
            f"--window-size={layout.width},{layout.height}",
            f"--screenshot={shot}", page.as_uri(),
        ]
        try:
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if not shot.exists():
            return None
        with Image.open(shot) as image:
            result = image.convert("RGB")
        if result.size != (layout.width, layout.height):
            return None
        return result


def make_screenshot(comic: Image.Image, rng: np.random.Generator, style: str, chromium: str | None):
    layout, params = chat_layout(comic, rng) if style == "chat" else slide_layout(comic, rng)
    if chromium:
        shot = render_with_chromium(layout, comic, chromium)
        if shot is not None:
            return shot, f"renderer=chromium {params}"
        print(f"warning: chromium failed, drawing the {style} screenshot with Pillow",
              file=sys.stderr)
    return render_with_pillow(layout, comic), f"renderer=pillow {params}"


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

def make_variants(source: Path, output: Path, seed: int, chromium: str | None):
    """Write every variant of one source image; yield manifest rows."""
    comic = load_comic(source)
    number = comic_number(source)
    stem = source.stem
    for transform in TRANSFORMS:
        rng = rng_for(seed, source.name, transform)
        save_options: dict = {}
        suffix = "png"
        if transform == "crop1":
            result, params = make_crop(comic, rng, 1)
        elif transform == "crop2":
            result, params = make_crop(comic, rng, 2)
        elif transform == "resize":
            result, params = make_resize(comic, rng)
        elif transform == "jpeg":
            quality = make_jpeg_params(rng)
            result, params = comic, f"quality={quality}"
            suffix, save_options = "jpg", {"quality": quality}
        elif transform in ("chat", "slide"):
            result, params = make_screenshot(comic, rng, transform, chromium)
        elif transform == "rotate":
            result, params = make_rotate(comic, rng)
        elif transform == "photo":
            result, quality, params = make_photo(comic, rng)
            suffix, save_options = "jpg", {"quality": quality}
        else:
            raise AssertionError(transform)
        name = f"{stem}__{transform}.{suffix}"
        result.save(output / name, **save_options)
        yield (name, str(number), transform, source.name, f"{params} size={result.size}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=Path, required=True,
                        help="folder of source comics named <number>-<name>.(png|gif|jpg)")
    parser.add_argument("--output", type=Path, required=True, help="folder to write the set to")
    parser.add_argument("--seed", type=int, required=True, help="seed for all random choices")
    parser.add_argument("--renderer", choices=["auto", "chromium", "pillow"], default="auto",
                        help="how to draw screenshots (auto: chromium if on PATH)")
    args = parser.parse_args()

    chromium = None
    if args.renderer in ("auto", "chromium"):
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            if args.renderer == "chromium":
                parser.error("--renderer chromium: no chromium on PATH")
            print("note: chromium not found; screenshots are drawn with Pillow", file=sys.stderr)

    sources = sorted(p for p in args.images.iterdir()
                     if p.suffix.lower() in IMAGE_SUFFIXES and re.match(r"\d+-", p.name))
    if not sources:
        parser.error(f"no '<number>-<name>' images in {args.images}")
    args.output.mkdir(parents=True, exist_ok=True)

    rows = []
    for source in sources:
        for row in make_variants(source, args.output, args.seed, chromium):
            rows.append(row)
        print(f"{source.name}: {len(TRANSFORMS)} variants", file=sys.stderr)

    with open(args.output / "manifest.tsv", "w", encoding="utf-8", newline="\n") as manifest:
        manifest.write("file\tcomic\ttransform\tsource\tparams\n")
        for row in rows:
            manifest.write("\t".join(row) + "\n")
    print(f"wrote {len(rows)} images and manifest.tsv to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
