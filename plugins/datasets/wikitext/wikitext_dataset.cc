#include "plugins/datasets/wikitext/wikitext_dataset.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "datasets/data_path.h"
#include "datasets/fixed_dataset.h"
#include "datasets/wikitext_tokens.h"

namespace attnlab {
namespace {

// The ids of `words`, cut into sequences: inputs [n, seq_len, 1], targets the next ids.
template <typename T>
absl::StatusOr<Batch<T>> Sequences(const std::vector<std::string>& words, const Vocabulary& vocab,
                                   int seq_len, int max_sequences, const std::string& what) {
  const int64_t available = (static_cast<int64_t>(words.size()) - 1) / seq_len;
  if (available < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", words.size(), " tokens, fewer than seq_len + 1 = ", seq_len + 1));
  }
  const int n =
      static_cast<int>(max_sequences > 0 ? std::min<int64_t>(available, max_sequences) : available);
  Batch<T> batch;
  batch.inputs.Resize({n, seq_len, 1});
  batch.targets.Resize({n, seq_len, 1});
  for (int64_t i = 0; i < static_cast<int64_t>(n) * seq_len; ++i) {
    batch.inputs.data()[i] = static_cast<T>(vocab.Id(words[i]));
    batch.targets.data()[i] = static_cast<T>(vocab.Id(words[i + 1]));
  }
  return batch;
}

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> ReadWikiText(const plugins::WikiTextConfig& spec,
                                                         const std::string& base_dir) {
  if (spec.train().empty()) return FieldError("train", "missing required field: the training file");
  if (spec.seq_len() <= 0) return FieldError("seq_len", "missing or not > 0");
  if (spec.vocab_size() < 3) return FieldError("vocab_size", "missing or < 3");
  absl::StatusOr<std::vector<std::string>> train =
      ReadWikiTextTokens(ResolveDataPath(spec.train(), base_dir));
  if (!train.ok()) return FieldError("train", train.status());
  const Vocabulary vocab(*train, spec.vocab_size());
  absl::StatusOr<Batch<T>> batch = Sequences<T>(*train, vocab, spec.seq_len(), 0, spec.train());
  if (!batch.ok()) return FieldError("train", batch.status().message());
  auto dataset = std::make_unique<FixedDataset<T>>(std::move(*batch));
  for (int k = 0; k < spec.validation_size(); ++k) {
    const plugins::WikiTextConfig::Split& split = spec.validation(k);
    const std::string field = absl::StrCat("validation[", k, "]");
    if (split.name().empty()) return FieldError(field + ".name", "missing required field 'name'");
    absl::StatusOr<std::vector<std::string>> words =
        ReadWikiTextTokens(ResolveDataPath(split.path(), base_dir));
    if (!words.ok()) return FieldError(field + ".path", words.status());
    absl::StatusOr<Batch<T>> sequences =
        Sequences<T>(*words, vocab, spec.seq_len(), split.max_sequences(), split.path());
    if (!sequences.ok()) return FieldError(field + ".path", sequences.status().message());
    dataset->AddValidation({split.name(), std::move(*sequences)});
  }
  return std::unique_ptr<Dataset<T>>(std::move(dataset));
}

}  // namespace

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> WikiTextDataset<T>::Build(
    const DatasetContext& context) {
  return ReadWikiText<T>(config_, context.base_dir);
}

template class WikiTextDataset<float>;
template class WikiTextDataset<double>;

ATTNLAB_REGISTER_DATASET("wikitext", plugins::WikiTextConfig, WikiTextDataset,
                         "word-level language modeling on WikiText-style token files: "
                         "sequences of token ids, targets the next ids",
                         {"train: 'datasets/testdata/wikitext_tiny/wiki.train.tokens' seq_len: 4 "
                          "vocab_size: 20"});

}  // namespace attnlab
