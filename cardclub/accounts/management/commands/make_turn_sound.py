"""Write ``static/sound/turn.wav``, the chime a member may choose to hear when it becomes their
turn: made here, so the project ships no sound it did not make and loads none from the network.

Two short notes (E6, then A6), 0.32 s, 16 kHz, 8-bit mono: about 5 KB.
"""

from __future__ import annotations

import math
import wave

from django.conf import settings
from django.core.management.base import BaseCommand

RATE = 16000
NOTES = ((1318.5, 0.12), (1760.0, 0.2))  # (Hz, seconds)


def chime() -> bytes:
    frames = bytearray()
    for freq, seconds in NOTES:
        count = int(RATE * seconds)
        for i in range(count):
            t = i / RATE
            # A 10 ms attack (no click), then an exponential decay over the note.
            envelope = min(1.0, i / (0.01 * RATE)) * math.exp(-5.0 * t / seconds)
            frames.append(int(128 + 127 * 0.45 * envelope * math.sin(2 * math.pi * freq * t)))
    return bytes(frames)


class Command(BaseCommand):
    help = "Write static/sound/turn.wav (the optional your-turn chime)."

    def handle(self, *args, **options):
        path = settings.BASE_DIR / "static" / "sound" / "turn.wav"
        path.parent.mkdir(parents=True, exist_ok=True)
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(1)
            out.setframerate(RATE)
            out.writeframes(chime())
        self.stdout.write(f"wrote {path}")
