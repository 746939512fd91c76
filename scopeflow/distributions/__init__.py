"""``tf.distributions`` (TF1's deprecated distributions module, still in tf.compat.v1): the
base class, the reparameterisation markers, the standard distributions built on scopeflow's
random and special-function ops, and the KL registry."""

from scopeflow.distributions.bernoulli import Bernoulli
from scopeflow.distributions.beta import Beta
from scopeflow.distributions.categorical import Categorical
from scopeflow.distributions.dirichlet import Dirichlet
from scopeflow.distributions.dirichlet_multinomial import DirichletMultinomial
from scopeflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    ReparameterizationType,
)
from scopeflow.distributions.exponential import Exponential
from scopeflow.distributions.gamma import Gamma
from scopeflow.distributions.kullback_leibler import RegisterKL, kl_divergence
from scopeflow.distributions.laplace import Laplace
from scopeflow.distributions.multinomial import Multinomial
from scopeflow.distributions.normal import Normal
from scopeflow.distributions.student_t import StudentT
from scopeflow.distributions.uniform import Uniform
from scopeflow.framework.api_fallback import missing_attribute

__all__: list[str] = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "DirichletMultinomial",
                      "Distribution", "Exponential", "FULLY_REPARAMETERIZED", "Gamma", "Laplace",
                      "Multinomial", "NOT_REPARAMETERIZED", "Normal", "RegisterKL",
                      "ReparameterizationType", "StudentT", "Uniform", "kl_divergence"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
