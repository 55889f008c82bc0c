# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# TfIdfVectorizer against onnxruntime: TF, IDF and TFIDF with and without
# weights, int32 and int64 tokens (large int64 values too), [C] and [N, C]
# inputs, unigrams to trigrams with skips, a pool level left empty, and
# output slots no n-gram maps to.
import numpy as np
from onnx import TensorProto, helper
from onnx_case import make_model

_RNG = np.random.default_rng(20261128)


def _case(name, x, mode, counts, indexes, pool, min_n, max_n, skip, weights=None):
    attrs = {"mode": mode, "ngram_counts": counts, "ngram_indexes": indexes, "pool_int64s": pool,
             "min_gram_length": min_n, "max_gram_length": max_n, "max_skip_count": skip}
    if weights is not None:
        attrs["weights"] = weights
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    return {"name": f"tfidf_{name}", "model": make_model([node], {"x": x}, [("y", TensorProto.FLOAT)], 9),
            "inputs": {"x": x}}


def cases():
    tokens = _RNG.integers(0, 6, size=(3, 40)).astype(np.int64)
    # Unigrams 0..5, bigrams (1,2) (3,3) (5,0), trigrams (1,2,3) (0,0,0).
    pool = [0, 1, 2, 3, 4, 5, 1, 2, 3, 3, 5, 0, 1, 2, 3, 0, 0, 0]
    counts = [0, 6, 12]
    indexes = list(range(11))
    weights = [0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 1.0, 0.75, 2.5, 0.1, 4.0]
    yield _case("tf_uni_to_tri_skip2", tokens, "TF", counts, indexes, pool, 1, 3, 2)
    yield _case("idf_weighted", tokens, "IDF", counts, indexes, pool, 2, 3, 1, weights)
    yield _case("tfidf_weighted_int32", tokens.astype(np.int32), "TFIDF", counts, indexes, pool, 1, 2, 3, weights)
    yield _case("tfidf_unweighted_1d", tokens[0], "TFIDF", counts, indexes, pool, 1, 3, 0)
    # Slots 0, 2 and 4-6 have no n-gram; bigrams only, the unigram level empty.
    yield _case("sparse_slots", tokens, "TF", [0, 0], [3, 7, 1], [1, 2, 3, 3, 5, 0], 2, 2, 5)
    big = np.array([[2**40, 7, -3, 2**40, 7, 2**40]], np.int64)
    yield _case("large_int64", big, "TF", [0, 2], [0, 1, 2], [2**40, -3, 2**40, 7], 1, 2, 1)
