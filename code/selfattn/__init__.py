"""selfattn: the small PyTorch package behind *Self-attention from scratch*.

Everything a chapter trains or plots comes from here, so the code a reader sees
is the code that ran.
"""

# First, before any module imports torch: importing it pins the CPU kernels (see its docstring).
from selfattn.arithmetic import check
from selfattn.batches import get_batch, split_train_val
from selfattn.config import TrainConfig
from selfattn.corpus import Corpus, load_corpus
from selfattn.data import load_text
from selfattn.errors import ConfigError, DataError, ReaderError
from selfattn.models import AttentionLanguageModel, BigramLanguageModel, Head, LanguageModel
from selfattn.registry import make_model
from selfattn.runs import ATTENTION, ATTENTION_TRY, BIGRAM
from selfattn.threads import use_one_thread
from selfattn.tokenizers import CharTokenizer, gpt2_tokenizer
from selfattn.training import History, Progress, estimate_loss, fit, train

use_one_thread()
check()

__all__ = [
    "ATTENTION",
    "ATTENTION_TRY",
    "BIGRAM",
    "AttentionLanguageModel",
    "BigramLanguageModel",
    "CharTokenizer",
    "Corpus",
    "ConfigError",
    "DataError",
    "Head",
    "History",
    "LanguageModel",
    "TrainConfig",
    "Progress",
    "ReaderError",
    "estimate_loss",
    "fit",
    "get_batch",
    "gpt2_tokenizer",
    "load_corpus",
    "load_text",
    "make_model",
    "split_train_val",
    "train",
]
