"""The sentence model: is a user's sentence a standing convention, decision, preference or
personal fact, or something for today (a request, a question, anything else)?

A small multinomial logistic regression over hashed features (``features``), trained offline
from labelled sentences (train/train_classifier.py) and shipped as ``sentence_model.json``;
inference is plain Python (``model``), loaded only when capture classifies a sentence.
See docs/capture.md ("The sentence model").
"""
