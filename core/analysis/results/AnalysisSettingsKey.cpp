#include "analysis/results/AnalysisSettingsKey.h"

#include "spectral/AlphaInterval.h"

#include <QCryptographicHash>
#include <limits>
#include <utility>

namespace rankscope {

namespace {

// A number as this build writes it (no plus sign, no leading zeros), else none: another spelling is
// another key, as it always was.
template <typename T>
std::optional<T> canonicalNumber(const QString &text)
{
    bool ok = false;
    const qint64 n = text.toLongLong(&ok);
    if (!ok || QString::number(n) != text || n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max())
        return std::nullopt;
    return T(n);
}

} // namespace

AnalysisSettingsKey AnalysisSettingsKey::of(const AnalysisSettings &settings, const QString &rulesIdentity, const QString &mergeBaseIdentity,
                                            int schemaVersion)
{
    AnalysisSettingsKey key;
    key.solver = QLatin1String(svdMethodName(settings.method));
    key.rules = rulesIdentity;
    key.schema = schemaVersion;
    key.randDistance = settings.randDistance;
    key.delta = settings.delta;
    if (settings.delta)
        key.referenceStep = settings.referenceStep;
    if (settings.subspace)
        key.subspaceK = settings.subspaceK;
    if (settings.alphaCi)
        key.alphaCiResamples = kAlphaCiResamples;
    key.heads = settings.heads;
    // Merged weights are other matrices than the run's updates: their own spectra, by the base's content.
    if (!settings.mergeBase.isEmpty())
        key.others << QStringLiteral("merged=") + mergeBaseIdentity;
    // Another choice of matrices is another set of results.
    if (!settings.onlyMatrices.isEmpty()) {
        QStringList names;
        for (const MatrixIdentity &id : settings.onlyMatrices)
            names << id.block + QLatin1Char('/') + QString::number(id.layer) + QLatin1Char('/') + QString::number(int(id.type)) + QLatin1Char('/') + id.expert;
        names.sort();
        key.others << QStringLiteral("only=") +
                          QString::fromLatin1(QCryptographicHash::hash(names.join(QLatin1Char('\n')).toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
    }
    return key;
}

QString AnalysisSettingsKey::toString() const
{
    QStringList items{QStringLiteral("solver=") + solver, QStringLiteral("rules=") + rules,
                      QStringLiteral("schema=%1").arg(schema)};
    items << others;
    if (randDistance)
        items << QStringLiteral("rand_distance=1");
    if (delta)
        items << QStringLiteral("delta=%1").arg(referenceStep ? QString::number(*referenceStep) : QStringLiteral("first"));
    if (subspaceK)
        items << QStringLiteral("subspace=%1").arg(*subspaceK);
    if (alphaCiResamples)
        items << QStringLiteral("alpha_ci=%1").arg(*alphaCiResamples);
    if (heads)
        items << QStringLiteral("heads=1");
    return items.join(QLatin1Char(';'));
}

AnalysisSettingsKey AnalysisSettingsKey::parse(const QString &text)
{
    AnalysisSettingsKey key;
    bool seenSolver = false, seenRules = false, seenSchema = false;
    for (const QString &item : text.split(QLatin1Char(';'))) {
        const qsizetype equals = item.indexOf(QLatin1Char('='));
        const QString name = equals < 0 ? QString() : item.left(equals);
        const QString value = equals < 0 ? QString() : item.mid(equals + 1);
        if (name == QLatin1String("solver") && !std::exchange(seenSolver, true)) {
            key.solver = value;
        } else if (name == QLatin1String("rules") && !std::exchange(seenRules, true)) {
            key.rules = value;
        } else if (name == QLatin1String("schema") && !seenSchema && canonicalNumber<int>(value)) {
            key.schema = *canonicalNumber<int>(value);
            seenSchema = true;
        } else if (item == QLatin1String("rand_distance=1") && !key.randDistance) {
            key.randDistance = true;
        } else if (name == QLatin1String("delta") && !key.delta && (value == QLatin1String("first") || canonicalNumber<qint64>(value))) {
            key.delta = true;
            key.referenceStep = canonicalNumber<qint64>(value);
        } else if (item == QLatin1String("heads=1") && !key.heads) {
            key.heads = true;
        } else if (name == QLatin1String("subspace") && !key.subspaceK && canonicalNumber<int>(value)) {
            key.subspaceK = canonicalNumber<int>(value);
        } else if (name == QLatin1String("alpha_ci") && !key.alphaCiResamples && canonicalNumber<int>(value)) {
            key.alphaCiResamples = canonicalNumber<int>(value);
        } else {
            key.others << item;
        }
    }
    return key;
}

bool AnalysisSettingsKey::sameSettings(const AnalysisSettingsKey &o) const
{
    return solver == o.solver && rules == o.rules && schema == o.schema && others == o.others;
}

std::optional<AnalysisOptIns> AnalysisSettingsKey::missingFrom(const AnalysisSettingsKey &stored) const
{
    if (!sameSettings(stored))
        return std::nullopt;
    AnalysisOptIns missing;
    missing.randDistance = randDistance && !stored.randDistance;
    missing.delta = delta && (!stored.delta || stored.referenceStep != referenceStep);
    missing.subspace = subspaceK && stored.subspaceK != subspaceK;
    missing.alphaCi = alphaCiResamples && stored.alphaCiResamples != alphaCiResamples;
    missing.heads = heads && !stored.heads;
    return missing;
}

bool AnalysisSettingsKey::coveredBy(const AnalysisSettingsKey &stored) const
{
    const std::optional<AnalysisOptIns> missing = missingFrom(stored);
    return missing && !missing->any();
}

} // namespace rankscope
