"""Premade estimators (TF's ``canned``): DNN classifier and regressor with TF's heads."""
