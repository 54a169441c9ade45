"""The poem's form, poems written in it, and where attention looks from a quatrain's last line."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from selfattn.errors import ConfigError
from selfattn.registry import make_model
from selfattn.runs import LADDER
from selfattn.sampling import Sampling
from selfattn.tokenizers import CharTokenizer
from selfattn.verse import attention_from_last_line, chinese_ids, form, quatrains, write

TEXT = (
    "白日依山盡，黃河入海流。\n欲窮千里目，更上一層樓。\n\n"
    "春眠不覺曉，處處聞啼鳥。\n夜來風雨聲，花落知多少。\n\n"
    "千山鳥飛絕，萬逕人蹤滅。\n\n"
    "客程終日風塵苦，蓬轉還家未有期。\n林色曉分殘雪後，角聲寒奏落帆時。\n\n"
)
TOKENIZER = CharTokenizer(TEXT)


def small_model(block_size: int = 32) -> torch.nn.Module:
    torch.manual_seed(0)
    config = replace(LADDER["layernorm"].config, block_size=block_size)
    return make_model("gpt", TOKENIZER.vocab_size, config).eval()


def test_form_puts_the_punctuation_of_each_couplet():
    assert "".join(slot or "字" for slot in form(5, 1)) == "字字字字字，字字字字字。\n"
    assert len(form(7, 2)) == 2 * (2 * 7 + 3)


@pytest.mark.parametrize("line_length, couplets", [(6, 2), (5, 0)])
def test_form_refuses_what_is_not_regulated(line_length, couplets):
    with pytest.raises(ConfigError, match="line_length=6|couplets=0"):
        form(line_length, couplets)


def test_write_keeps_the_form_and_the_prompt_and_draws_only_characters():
    poem = write(small_model(), TOKENIZER, "白日", generator=torch.Generator().manual_seed(1))
    assert poem.startswith("白日")
    couplets = poem.split("\n")
    assert len(couplets) == 2
    for couplet in couplets:
        first, second = couplet[:-1].split("，")
        assert couplet[-1] == "。" and len(first) == len(second) == 5
        assert all(chinese_ids(TOKENIZER)[TOKENIZER.stoi[char]] for char in first + second)


def test_write_draws_the_same_poem_from_the_same_seed_and_another_from_another():
    model = small_model()
    drawn = [write(model, TOKENIZER, generator=torch.Generator().manual_seed(seed)) for seed in (1, 1, 2)]
    assert drawn[0] == drawn[1] != drawn[2]


def test_write_with_a_context_shorter_than_the_poem_crops_it():
    poem = write(small_model(block_size=8), TOKENIZER, line_length=7, sampling=Sampling(top_k=3))
    assert len(poem.replace("\n", "")) == 2 * (2 * 7 + 2)


@pytest.mark.parametrize(
    "prompt, message",
    [
        ("白日，", "'，' is not a Chinese character"),
        ("白" * 21, "the poem has 20 characters"),
        ("龍", "'龍' is not in this tokenizer"),
    ],
)
def test_write_names_what_is_wrong_with_a_prompt(prompt, message):
    with pytest.raises(ConfigError, match=message):
        write(small_model(), TOKENIZER, prompt)


def test_quatrains_are_the_first_four_lines_of_poems_in_that_form():
    assert quatrains(TEXT, 5) == [
        "白日依山盡，黃河入海流。\n欲窮千里目，更上一層樓。\n",
        "春眠不覺曉，處處聞啼鳥。\n夜來風雨聲，花落知多少。\n",
    ]
    assert [len(q) for q in quatrains(TEXT, 7)] == [34]


def test_attention_from_last_line_averages_each_head_s_weights_over_the_poems():
    model = small_model()
    poems = quatrains(TEXT, 5)
    measured = attention_from_last_line(model, TOKENIZER, poems, 5)  # (layers, heads, 5, T)
    assert measured.shape == (len(model.blocks), 4, 5, 26)
    assert torch.allclose(measured.sum(dim=-1), torch.ones(len(model.blocks), 4, 5))
    assert torch.all(measured[..., 0, 20:] == 0)  # line 4's first character (at 19) sees nothing later
    # a head that looks only at the position just before: line 4's characters look at 18 .. 22
    model.blocks[0].sa.attn_dropout.register_forward_pre_hook(lambda m, args: (previous(args[0]),))
    looked_at = attention_from_last_line(model, TOKENIZER, poems, 5)[0].argmax(dim=-1)  # (heads, 5)
    assert looked_at.tolist() == [[18, 19, 20, 21, 22]] * 4


def previous(wei: torch.Tensor) -> torch.Tensor:
    """Attention weights that put everything on the position just before (B, nh, T, T)."""
    T = wei.shape[-1]
    shifted = torch.diag(torch.ones(T - 1), -1)  # (T, T): row q has a one at q - 1
    shifted[0, 0] = 1.0
    return shifted.expand_as(wei).clone()
