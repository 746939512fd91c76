"""TF1's ``tensorflow.examples.tutorials`` layout, so tutorial imports keep working."""
