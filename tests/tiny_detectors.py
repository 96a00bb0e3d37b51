"""Tiny randomly initialised OWLv2 and Grounding DINO written to a folder in the test (no download).

Each folder holds what a real checkpoint holds: ``config.json``, the weights, a tokenizer (CLIP byte-level
BPE for OWLv2, a WordPiece vocabulary for Grounding DINO, both made here) and the image processor with a
small input size, so `AutoProcessor` and the ``*ForObjectDetection`` classes load it as they load a download.
"""

from __future__ import annotations

from pathlib import Path

WORDS = ["a", "photo", "of", "mug", "bowl", "red", "cup", "chair", "plant", "kettle", "fork", "."]


def _wordpiece_vocab() -> dict[str, int]:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = sorted({c for w in WORDS for c in w})
    tokens = dict.fromkeys(specials + WORDS + [f"##{c}" for c in chars] + chars)
    return {t: i for i, t in enumerate(tokens)}


def write_tiny_owlv2(folder: Path, seed: int = 0, image_size: int = 64) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        Owlv2Config,
        Owlv2ForObjectDetection,
        Owlv2ImageProcessorPil,
        Owlv2Processor,
        PreTrainedTokenizerFast,
    )

    folder.mkdir(parents=True, exist_ok=True)
    specials = ["<|startoftext|>", "<|endoftext|>", "!"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator([" ".join(WORDS)] * 10, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=specials[0], eos_token=specials[1], pad_token=specials[2]
    )
    images = Owlv2ImageProcessorPil(size={"height": image_size, "width": image_size})
    Owlv2Processor(image_processor=images, tokenizer=fast).save_pretrained(folder)
    config = Owlv2Config(
        text_config={
            "vocab_size": len(fast),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "max_position_embeddings": 16,
            "bos_token_id": fast.bos_token_id,
            "eos_token_id": fast.eos_token_id,
            "pad_token_id": fast.pad_token_id,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": image_size,
            "patch_size": 16,
        },
        projection_dim=32,
    )
    torch.manual_seed(seed)
    model = Owlv2ForObjectDetection(config)
    with torch.no_grad():  # boxes = the patch grid (OWLv2's box bias): random heads give degenerate boxes
        model.box_head.dense2.weight.mul_(0.01)
        model.box_head.dense2.bias.zero_()
    model.save_pretrained(folder)
    return folder


def write_tiny_grounding_dino(folder: Path, seed: int = 0, image_size: int = 64) -> Path:
    import torch
    from transformers import (
        BertTokenizerFast,
        GroundingDinoConfig,
        GroundingDinoForObjectDetection,
        GroundingDinoImageProcessorPil,
        GroundingDinoProcessor,
    )

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = BertTokenizerFast(vocab=_wordpiece_vocab(), do_lower_case=True)
    images = GroundingDinoImageProcessorPil(size={"shortest_edge": image_size, "longest_edge": image_size})
    GroundingDinoProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    config = GroundingDinoConfig(
        backbone_config={
            "model_type": "swin",
            "embed_dim": 16,
            "depths": [1, 1, 1, 1],
            "num_heads": [1, 1, 2, 2],
            "window_size": 4,
            "image_size": image_size,
            "out_features": ["stage2", "stage3", "stage4"],
            "out_indices": [2, 3, 4],
        },
        text_config={
            "model_type": "bert",
            "vocab_size": tokenizer.vocab_size,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "max_position_embeddings": 64,
        },
        d_model=32,
        num_queries=20,
        encoder_layers=1,
        decoder_layers=2,  # one layer breaks the tied box heads (bbox_embed.0 ↔ 1…)
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        num_feature_levels=4,
        encoder_n_points=2,
        decoder_n_points=2,
        max_text_len=32,
    )
    torch.manual_seed(seed)
    GroundingDinoForObjectDetection(config).save_pretrained(folder)
    return folder
