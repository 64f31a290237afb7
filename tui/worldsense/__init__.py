"""WorldSense in the app: nothing of its own (its trials use the generic choice screen, its commands are generated
from ``benchlab.annotations.worldsense``), which is what the task registry is for."""
