"""LoRA fine-tune of a causal language model with the Hugging Face Trainer.

A XyClaw example: started by torchrun on every node (see ../lora-2node.yaml).
Checkpoints go to --output_dir every --save_steps; --resume_from_checkpoint
(added by XyClaw on a recovered attempt) continues from one. The Trainer's
log lines ({'loss': ..., 'learning_rate': ...}) and its tqdm bar are what
XyClaw's progress view reads.
"""

from __future__ import annotations

import argparse

import torch
from datasets import load_dataset
from peft import LoraConfig, get_peft_model
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    DataCollatorForLanguageModeling,
    Trainer,
    TrainingArguments,
)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="Qwen/Qwen2.5-7B")
    p.add_argument("--dataset", default="tatsu-lab/alpaca")
    p.add_argument("--output_dir", required=True)
    p.add_argument("--max_steps", type=int, default=2000)
    p.add_argument("--save_steps", type=int, default=200)
    p.add_argument("--per_device_train_batch_size", type=int, default=4)
    p.add_argument("--max_seq_length", type=int, default=2048)
    p.add_argument("--learning_rate", type=float, default=2e-4)
    p.add_argument("--lora", action="store_true", help="train LoRA adapters only")
    p.add_argument("--resume_from_checkpoint", default=None)
    args = p.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    if args.lora:
        lora = LoraConfig(
            r=16,
            lora_alpha=32,
            lora_dropout=0.05,
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
            task_type="CAUSAL_LM",
        )
        model.enable_input_require_grads()  # gradient checkpointing through frozen layers
        model = get_peft_model(model, lora)

    data = load_dataset(args.dataset, split="train")

    def tokenize(batch: dict[str, list[str]]) -> dict[str, list[list[int]]]:
        texts = [
            f"{instruction}\n{given}\n{answer}{tokenizer.eos_token}"
            for instruction, given, answer in zip(
                batch["instruction"], batch["input"], batch["output"], strict=True
            )
        ]
        return tokenizer(texts, truncation=True, max_length=args.max_seq_length)

    data = data.map(tokenize, batched=True, remove_columns=data.column_names)

    training = TrainingArguments(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        save_steps=args.save_steps,
        save_total_limit=3,
        logging_steps=10,
        per_device_train_batch_size=args.per_device_train_batch_size,
        learning_rate=args.learning_rate,
        lr_scheduler_type="cosine",
        warmup_ratio=0.03,
        bf16=True,
        gradient_checkpointing=True,
        ddp_find_unused_parameters=False,
        report_to=[],
    )
    trainer = Trainer(
        model=model,
        args=training,
        train_dataset=data,
        data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False),
    )
    trainer.train(resume_from_checkpoint=args.resume_from_checkpoint)
    trainer.save_model(f"{args.output_dir}/final")


if __name__ == "__main__":
    main()
