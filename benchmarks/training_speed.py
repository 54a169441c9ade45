"""Train the attention chapter's setup twice and print the speed ratio.

Once with the package's loop (``selfattn.train``) and once with a deliberately
naive loop of the lecture kind: a Python-list ``get_batch``, evaluation as 200
separate forward passes per split, the default (unfused) AdamW and torch's default
thread count. Both use the same model class, hyperparameters (``ATTENTION``) and seed.

    python -m benchmarks.training_speed [--max-iters 5000]     # from the repository's root
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import torch

from selfattn import ATTENTION, TrainConfig, load_corpus, make_model, train
from selfattn.threads import ALL_CORES


def naive_get_batch(data: torch.Tensor, cfg: TrainConfig) -> tuple[torch.Tensor, torch.Tensor]:
    ix = torch.randint(len(data) - cfg.block_size, (cfg.batch_size,))  # (B,)
    x = torch.stack([data[i : i + cfg.block_size] for i in ix])  # (B, T)
    y = torch.stack([data[i + 1 : i + cfg.block_size + 1] for i in ix])  # (B, T)
    return x, y


@torch.no_grad()
def naive_estimate_loss(model: torch.nn.Module, splits: dict, cfg: TrainConfig) -> dict:
    out = {}
    model.eval()
    for name, data in splits.items():
        losses = torch.zeros(cfg.eval_iters)
        for k in range(cfg.eval_iters):
            _, loss = model(*naive_get_batch(data, cfg))
            losses[k] = loss.item()
        out[name] = losses.mean().item()
    model.train()
    return out


def naive_train(model: torch.nn.Module, splits: dict, cfg: TrainConfig) -> float:
    """The lecture loop; returns the final val loss."""
    torch.set_num_threads(ALL_CORES)  # torch's default, which the package changes on import
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
    for it in range(cfg.max_iters):
        if it % cfg.eval_interval == 0:
            naive_estimate_loss(model, splits, cfg)
        xb, yb = naive_get_batch(splits["train"], cfg)
        _, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    val = naive_estimate_loss(model, splits, cfg)["val"]
    torch.set_num_threads(1)
    return val


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-iters", type=int, default=ATTENTION.max_iters)
    args = parser.parse_args()
    cfg = replace(ATTENTION, max_iters=args.max_iters)
    corpus = load_corpus()
    vocab = corpus.tokenizer.vocab_size

    model = make_model("attention", vocab, cfg)  # seeds torch's global generator too
    start = time.perf_counter()
    naive_val = naive_train(model, {"train": corpus.train, "val": corpus.val}, cfg)
    naive_s = time.perf_counter() - start

    model = make_model("attention", vocab, cfg)
    start = time.perf_counter()
    package_val = train(model, corpus.train, corpus.val, cfg).final_val
    package_s = time.perf_counter() - start

    print(f"{'loop':<10}{'val loss':>10}{'seconds':>10}")
    print(f"{'naive':<10}{naive_val:>10.4f}{naive_s:>10.2f}")
    print(f"{'package':<10}{package_val:>10.4f}{package_s:>10.2f}")
    print(f"speed-up: {naive_s / package_s:.2f}x   val loss difference: {package_val - naive_val:+.4f}")


if __name__ == "__main__":
    main()
