// What besides the files decides the stored spectra and metrics (solver, naming rules, results
// schema) and which opt-in metrics they hold (rand_distance, delta and its reference, subspace and
// its k, alpha's bootstrap interval and its resamples), as the results file keeps it: "solver=gram;rules=builtin-3;schema=3;delta=first;…".
// Built from the settings and parsed back here only, so that what is written and what is compared
// cannot drift apart. τ is not part of it: metrics are recomputed from the stored spectra at any τ.
#pragma once

#include "analysis/AnalysisSettings.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

struct AnalysisSettingsKey {
    // Deciding the spectra: stored results with other values here serve for nothing.
    QString solver;
    QString rules;
    int schema = 0;
    // Items this build does not write, an opt-in value it would not write among them (a key of
    // another build, or edited): compared as they are.
    QStringList others;
    // The opt-in metrics: stored results without some of them serve for the rest.
    bool randDistance = false;
    bool delta = false;
    std::optional<qint64> referenceStep; // with delta: the reference's step; none: the run's first
    std::optional<int> subspaceK;
    std::optional<int> alphaCiResamples; // --alpha-ci: its resamples (another count: lacking too)
    bool heads = false;

    // rulesIdentity: TensorNameRules::identity; mergeBaseIdentity: MergeBase::identity of the
    // settings' merge base (empty without one).
    static AnalysisSettingsKey of(const AnalysisSettings &settings, const QString &rulesIdentity, const QString &mergeBaseIdentity,
                                  int schemaVersion);
    // Any text gives a key; items it does not know are kept in `others`.
    static AnalysisSettingsKey parse(const QString &text);
    // Opt-in metrics last, in this order (what earlier builds wrote).
    QString toString() const;

    // The opt-in metrics this key asks for that results stored under `stored` lack (a delta against
    // another reference, subspace at another k: lacking too); nullopt when the two differ in
    // anything else, so that nothing stored serves.
    std::optional<AnalysisOptIns> missingFrom(const AnalysisSettingsKey &stored) const;
    // Stored results serve whole: the same settings, and every opt-in metric wanted (or more).
    bool coveredBy(const AnalysisSettingsKey &stored) const;

private:
    bool sameSettings(const AnalysisSettingsKey &o) const;
};

} // namespace rankscope
