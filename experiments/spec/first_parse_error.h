// Collects the first error of a protobuf text-format parse (later ones are usually consequences).
#ifndef ATTNLAB_EXPERIMENTS_SPEC_FIRST_PARSE_ERROR_H_
#define ATTNLAB_EXPERIMENTS_SPEC_FIRST_PARSE_ERROR_H_

#include <string>

#include "google/protobuf/io/tokenizer.h"

namespace attnlab {

class FirstParseError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!seen_) {
      seen_ = true;
      line_ = line + 1;  // the parser counts from 0
      column_ = column + 1;
      message_ = message;
    }
  }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool seen_ = false;
  int line_ = 0, column_ = 0;
  std::string message_;
};

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_FIRST_PARSE_ERROR_H_
