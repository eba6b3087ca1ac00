// What a tensor that no family rule knows is, decided from its name alone, after the rules:
// known not to be a matrix type (an embedding, a norm, a router, a head, a position table, a
// convolution kernel, an integer buffer); a weight inside a numbered layer whose own module name
// says its type (query, key, value, output; up, down, gate; fc1/fc2, wi/wo, lin1/lin2, w1/w2/w3,
// dense in an attention or MLP module), typed as that; or anything else inside a layer, reported
// with the reason. A fused tensor (qkv, query_key_value, gate_up_proj, …) is never split here: only
// a family rule proves a layout.
#pragma once

#include "model/MatrixType.h"
#include "model/TensorNameRules.h"

#include <QList>
#include <QString>
#include <functional>
#include <optional>

namespace rankscope {

struct GenericVerdict {
    enum class Kind {
        NotAMatrix, // known not to be one of the types: left out, never reported
        Typed,      // `match` types it, from its name alone
        Reported,   // inside a layer (or read like a weight) and not analysed: `reason` says why
    };
    Kind kind = Kind::NotAMatrix;
    QString reason;
    RuleMatch match; // Typed: as a one-matrix rule would have matched it
};

class GenericTyping {
public:
    // The family every generically typed tensor is listed under (`rankscope info`'s rule column).
    static const QString &familyName();
    // `exists` answers whether a sibling tensor is in the checkpoint (names without wrapper prefixes).
    static GenericVerdict classify(const QString &tensorName, const QList<qint64> &shape, const QString &dtype,
                                   const std::function<bool(const QString &)> &exists);
};

} // namespace rankscope
