"""``tf.random``: the TF 1.x/2.x spellings of the random ops."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.random_seed import get_seed, set_random_seed
from scopeflow.ops.random.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from scopeflow.ops.random.learned_unigram_ops import learned_unigram_candidate_sampler
from scopeflow.ops.random.random_binomial_ops import (
    stateless_random_binomial as stateless_binomial,
)
from scopeflow.ops.random.random_gamma_ops import random_gamma as gamma
from scopeflow.ops.random.random_gamma_ops import random_poisson as poisson
from scopeflow.ops.random.random_gamma_ops import stateless_random_gamma as stateless_gamma
from scopeflow.ops.random.random_gamma_ops import (
    stateless_random_poisson as stateless_poisson,
)
from scopeflow.ops.random.random_ops import categorical, multinomial, truncated_normal
from scopeflow.ops.random.random_ops import random_normal as normal
from scopeflow.ops.random.random_ops import random_shuffle as shuffle
from scopeflow.ops.random.random_ops import random_uniform as uniform
from scopeflow.ops.random.stateless_random_ops import (
    Algorithm,
    fold_in,
    split,
    stateless_categorical,
    stateless_multinomial,
    stateless_truncated_normal,
)
from scopeflow.ops.random.stateless_random_ops import stateless_random_normal as stateless_normal
from scopeflow.ops.random.stateless_random_ops import (
    stateless_random_uniform as stateless_uniform,
)
from scopeflow.ops.random.truncated_normal_ops import (
    stateless_parameterized_truncated_normal,
)
from scopeflow.state.random_generator import (
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)

__all__ = ["Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "normal", "uniform", "truncated_normal", "shuffle", "set_random_seed", "get_seed",
           "categorical", "multinomial", "Algorithm", "fold_in", "split", "stateless_uniform",
           "stateless_normal", "stateless_truncated_normal", "stateless_categorical",
           "stateless_multinomial", "gamma", "poisson", "stateless_gamma", "stateless_poisson",
           "all_candidate_sampler", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler", "stateless_binomial",
           "stateless_parameterized_truncated_normal", "fixed_unigram_candidate_sampler",
           "learned_unigram_candidate_sampler"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
