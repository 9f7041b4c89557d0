"""Capture: turn agent transcripts into evidence and candidate facts.

Readers (``capture.readers``) reduce every agent's transcript format to one normalized event
model (``capture.events``), so extractors never learn a vendor's file layout.
"""
