#include "io/LitGptConfig.h"

#include "io/RegularFile.h"

#include <QRegularExpression>

namespace rankscope {

QVariantMap LitGptConfig::read(const QString &path)
{
    const std::optional<QByteArray> bytes = readSmallRegularFile(path, kMaxSidecarBytes);
    if (!bytes)
        return {};
    // yaml.dump writes a top-level int as "key: 32" at the start of its line.
    static const QRegularExpression field(QStringLiteral(R"(^(n_head|n_query_groups|head_size|n_embd|n_layer|block_size): (\d{1,12})\s*$)"),
                                          QRegularExpression::MultilineOption);
    QVariantMap config;
    for (auto it = field.globalMatch(QString::fromUtf8(*bytes)); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        config.insert(m.captured(1), m.captured(2).toLongLong());
    }
    if (!config.contains(QStringLiteral("n_head")) || !config.contains(QStringLiteral("n_embd")) || !config.contains(QStringLiteral("block_size")))
        return {};
    config.insert(QStringLiteral("model_type"), QStringLiteral("litgpt"));
    return config;
}

} // namespace rankscope
