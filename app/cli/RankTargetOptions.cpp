#include "RankTargetOptions.h"

#include "CommandOptions.h"

namespace rankscope {

QCommandLineOption keepOption()
{
    return {QStringLiteral("keep"), QStringLiteral("A parameter budget: keep this fraction, in (0, 1], of the attention and MLP parameters "
                                                   "(a rank-r factorisation of an m x n matrix costs r(m+n), at most mn)."), QStringLiteral("F")};
}

QCommandLineOption maxErrorOption()
{
    return {QStringLiteral("max-error"), QStringLiteral("Per matrix, the smallest rank whose relative Frobenius error is at most E, from 0 to 1."),
            QStringLiteral("E")};
}

std::optional<RankTarget> readRankTarget(const QCommandLineParser &parser, QString *error)
{
    const QList<std::pair<QString, RankTarget::Kind>> kinds = {
        {QStringLiteral("keep"), RankTarget::Kind::Keep}, {QStringLiteral("energy"), RankTarget::Kind::Energy}, {QStringLiteral("max-error"), RankTarget::Kind::MaxError}};
    std::optional<RankTarget> target;
    for (const auto &[name, kind] : kinds) {
        if (!parser.isSet(name))
            continue;
        if (target) {
            *error = QStringLiteral("give one of --keep, --energy and --max-error, not several");
            return std::nullopt;
        }
        const std::optional<double> value = kind == RankTarget::Kind::MaxError
                                                ? numberOption(name, parser.value(name), 0, 1, error)
                                                : numberOption(name, parser.value(name), 0, 1, error, QStringLiteral("a number"), true);
        if (!value)
            return std::nullopt;
        target = RankTarget{kind, *value};
    }
    if (!target)
        *error = QStringLiteral("give a target: --keep F, --energy τ or --max-error E");
    return target;
}

} // namespace rankscope
