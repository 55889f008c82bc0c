# Small GPT-2 and BERT exported exactly as ../shared/device/peers.py exports
# the benchmark's gpt2 / bert-base (TorchScript exporter, opset 17, batch
# dimension N symbolic, the text model wrapped to return one tensor), but
# with 2 layers and width 128: the same graph structure in a file small
# enough to bring back and inspect on lavapipe.
import sys
import torch
import transformers as tf

torch.manual_seed(0)
out = sys.argv[1]
for name in ("gpt2", "bert"):
    if name == "gpt2":
        m = tf.GPT2LMHeadModel(tf.GPT2Config(n_layer=2, n_head=4, n_embd=128, vocab_size=512, n_positions=256))
        key = "logits"
    else:
        m = tf.BertModel(tf.BertConfig(num_hidden_layers=2, num_attention_heads=4, hidden_size=128,
                                       intermediate_size=512, vocab_size=512))
        key = "last_hidden_state"

    class Text(torch.nn.Module):
        def __init__(s, m):
            super().__init__()
            s.m = m

        def forward(s, ids):
            return s.m(input_ids=ids, return_dict=True)[key]

    model = Text(m).eval()
    ids = torch.randint(0, 500, (1, 128))
    torch.onnx.export(model, (ids,), f"{out}/{name}_ts17.onnx", input_names=["input_ids"],
                      output_names=["output"], opset_version=17, dynamo=False,
                      dynamic_axes={"input_ids": {0: "N"}, "output": {0: "N"}})
    print("exported", name, torch.__version__, tf.__version__)
