"""Targets that misbehave on purpose: the harness must report each as a crash.

``selftest_crash`` lets a ``struct.error`` out (as a parser that trusts a length would)
and raises ``ValueError`` from the harness's own code (not a scopeflow ``raise``: still a
crash); ``selftest_hog`` allocates far past the memory limit; ``selftest_hang`` never
answers; ``selftest_die`` kills its own process; ``selftest_wrapped`` raises inside a
kernel, which the session turns into an ``InvalidArgumentError``. On any other input they
succeed, or raise an accepted ``DataLossError``.
"""

from __future__ import annotations

import os
import signal
import struct
import time

import numpy as np

from .base import Accept, Seed, Target


class _SelfTest(Target):
    owner = "tests/fuzz/targets/selftest.py (on purpose)"
    timeout_s = 2.0

    def __init__(self, workdir):
        super().__init__(workdir)
        from scopeflow.framework import errors

        self.errors = errors
        self.accepts = (Accept(errors.DataLossError, "the 'refused' input"),
                        Accept(ValueError, "only when scopeflow raises it"))

    def prepare(self):
        self.seeds = [Seed("fine", b"fine")]

    def install(self, seed, data, fix):
        return data

    def probes(self):
        return [("read", self.read)]

    def read(self, seed, data):
        if data == b"refused":
            raise self.errors.DataLossError(None, None, "refused on purpose")
        if data.startswith(b"BAD"):
            self.misbehave(data)
        return None

    def misbehave(self, data):
        raise NotImplementedError


class CrashTarget(_SelfTest):
    name = "selftest_crash"

    def misbehave(self, data):
        if data == b"BAD value":
            raise ValueError("not raised by scopeflow")
        struct.unpack("<Q", data[3:])   # struct.error: the length was trusted


class HogTarget(_SelfTest):
    name = "selftest_hog"

    def misbehave(self, data):
        hog = []
        while True:  # 16 MiB at a time, touched, until the address-space limit stops it
            hog.append(np.ones(1 << 21))


class HangTarget(_SelfTest):
    name = "selftest_hang"

    def misbehave(self, data):
        time.sleep(3600)


class DieTarget(_SelfTest):
    name = "selftest_die"

    def misbehave(self, data):
        os.kill(os.getpid(), signal.SIGSEGV)


class WrappedTarget(_SelfTest):
    """A stray exception inside a kernel: the session turns it into InvalidArgumentError,
    which the targets do accept; the harness must judge the original exception."""

    name = "selftest_wrapped"

    def prepare(self):
        import scopeflow as tf
        from scopeflow.framework.opdef import REGISTRY, OpDef

        super().prepare()
        # A throwaway op, registered in this worker process only, whose kernel trusts a
        # length as a careless parser would.
        op = REGISTRY.get("FuzzSelfTestParse") or OpDef(
            "FuzzSelfTestParse", shape=lambda s: [tf.TensorShape([])],
            dtype=lambda d: [tf.int64], grad=None,
            kernel=lambda b: np.int64(struct.unpack("<Q", bytes(b.item())[3:])[0]))
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.input = tf.placeholder(tf.string, [])
            self.output = op.bind(self.input)
        self.sess = tf.Session(graph=self.graph)
        self.accepts += (Accept(self.errors.InvalidArgumentError, "what TF's kernels raise"),)

    def misbehave(self, data):
        self.sess.run(self.output, {self.input: data})


SELFTEST_TARGETS = {t.name: t for t in (CrashTarget, HogTarget, HangTarget, DieTarget,
                                        WrappedTarget)}
