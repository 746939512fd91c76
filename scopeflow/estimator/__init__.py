"""``tf.estimator`` (and ``tf.compat.v1.estimator``): TF 1.15's Estimator framework on
scopeflow's MonitoredTrainingSession, Savers, summaries and SavedModels
(docs/estimator.md)."""

from __future__ import annotations

from scopeflow.estimator import experimental, export, inputs
from scopeflow.estimator.canned.baseline import BaselineClassifier, BaselineRegressor
from scopeflow.estimator.canned.dnn import DNNClassifier, DNNRegressor
from scopeflow.estimator.canned.dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
)
from scopeflow.estimator.canned.linear import LinearClassifier, LinearRegressor
from scopeflow.estimator.estimator import Estimator, VocabInfo, WarmStartSettings, add_metrics
from scopeflow.estimator.model_fn import EstimatorSpec, ModeKeys
from scopeflow.estimator.run_config import RunConfig
from scopeflow.estimator.training import (
    BestExporter,
    EvalSpec,
    Exporter,
    FinalExporter,
    LatestExporter,
    TrainSpec,
    train_and_evaluate,
)
from scopeflow.framework.api_fallback import APINotImplementedError, missing_attribute
from scopeflow.train.basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from scopeflow.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)

__all__ = [
    "BaselineClassifier", "BaselineRegressor", "BestExporter",
    "CheckpointSaverHook", "CheckpointSaverListener", "DNNClassifier",
    "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor", "DNNRegressor",
    "LinearClassifier", "LinearRegressor",
    "Estimator", "EstimatorSpec", "EvalSpec",
    "Exporter", "FeedFnHook", "FinalExporter", "FinalOpsHook", "GlobalStepWaiterHook",
    "LatestExporter", "LoggingTensorHook", "ModeKeys", "NanLossDuringTrainingError",
    "NanTensorHook", "ProfilerHook", "RunConfig", "SecondOrStepTimer", "SessionRunArgs",
    "SessionRunContext", "SessionRunHook", "SessionRunValues", "StepCounterHook",
    "StopAtStepHook", "SummarySaverHook", "TrainSpec", "VocabInfo", "WarmStartSettings",
    "add_metrics", "experimental", "export", "inputs", "train_and_evaluate"]

# TF 1.15's tf.estimator names scopeflow does not have yet (docs/estimator.md).
_NOT_YET = {
    "DNNLinearCombinedEstimator": "premade wide-and-deep estimators",
    "BoostedTreesClassifier": "gradient boosted trees (TF's C++ tree ops)",
    "BoostedTreesRegressor": "gradient boosted trees (TF's C++ tree ops)",
    "BoostedTreesEstimator": "gradient boosted trees (TF's C++ tree ops)",
    "Head": "the public head API", "BinaryClassHead": "the public head API",
    "MultiClassHead": "the public head API", "MultiLabelHead": "the public head API",
    "MultiHead": "the public head API", "RegressionHead": "the public head API",
    "LogisticRegressionHead": "the public head API",
    "PoissonRegressionHead": "the public head API",
    "DNNEstimator": "premade estimators over a head", "LinearEstimator":
    "premade estimators over a head", "BaselineEstimator": "premade estimators over a head",
    "tpu": "TPU estimators",
}


def __getattr__(name):
    why = _NOT_YET.get(name)
    if why is not None:
        raise APINotImplementedError(
            f"tf.estimator.{name} is part of TensorFlow 1's API but scopeflow does not "
            f"implement it yet: {why} (see docs/estimator.md)")
    raise missing_attribute(__name__, name)
