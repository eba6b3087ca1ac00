#!/usr/bin/env bash
# A small mutation pass: breaks one guard at a time, rebuilds, runs the suite that should catch
# it and expects that suite to fail. A mutation whose suite still passes is a test that cannot
# fail. Run by hand after a Release build (not part of CI: it rebuilds once per mutation):
#   scripts/mutation-pass.sh [build-dir]
# Every file is restored afterwards, whatever happens.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

# file @@ the exact text to break (found exactly once) @@ its broken form @@ the ctest that must fail
mutations=(
"core/io/torch/TorchCheckpointReader.cpp@@    if (static_cast<quint64>(rows) * static_cast<quint64>(cols) > entry->size / static_cast<quint64>(size))@@    if (false)@@tst_fuzzregressions"
"core/analysis/results/MetricAggregation.cpp@@            ++missing[r.step];@@            ;@@tst_metricaggregation"
"core/analysis/results/MetricsTable.cpp@@    if (!printable.contains(QLatin1Char(',')) && !printable.contains(QLatin1Char('\"')))@@    if (true)@@tst_metricstable"
"core/io/ElementDecoder.cpp@@quint16(b) << 8@@quint16(b) << 7@@tst_formatreaders"
"core/analysis/results/ResultsFile.cpp@@    if (!schema || *schema < 1 || *schema > ResultsFile::kSchemaVersion) {@@    if (!schema) {@@tst_resultsfile"
"core/spectral/MetricCatalog.h@@    {\"energy_rank\", &SpectralMetrics::energyRank,@@    {\"energy_rank\", &SpectralMetrics::paramSavingPct,@@tst_metricstable"
"core/analysis/AnalysisSettings.h@@        settings.delta = true;@@        ;@@tst_paperfigures"
"core/analysis/planning/TeamSchedule.cpp@@        own[i] = owners[i] == m_team->rank();@@        own[i] = true;@@tst_mpi"
"core/analysis/planning/AnalysisTeam.cpp@@            if (load[member] < load[least])@@            if (load[member] <= load[least])@@tst_analysisteam"
"core/io/torch/ZipDirectory.cpp@@        if (result.m_index.contains(entry.name)) {@@        if (false) {@@tst_torchcheckpointreader"
"core/io/torch/PickleReader.cpp@@        if (m_references > kMaxReferences) {@@        if (false) {@@tst_fuzzregressions"
"core/io/ShardedCheckpointReader.cpp@@    if (shardFile.endsWith(QLatin1String(\".index.json\")))@@    if (false)@@tst_folderlayouts"
"core/io/numpy/NpyFormat.cpp@@    h.elementSize = h.supported ? elementSize(h.dtype)@@    h.elementSize = h.supported ? 0 * elementSize(h.dtype)@@tst_formatreaders"
"core/io/torch/TorchCheckpointReader.cpp@@            if (t.stride[i] == 0 && t.shape[i] > 1) {@@            if (false) {@@tst_inputlimits"
"core/io/FolderWeights.cpp@@        result.listingError = error;@@        ;@@tst_folderlayouts"
"core/io/safetensors/SafetensorsReader.cpp@@    if (const QString twice = keyNamedTwice(header); !twice.isEmpty()) {@@    if (const QString twice = keyNamedTwice(header); false) {@@tst_formatreaders"
"core/model/GenericTyping.cpp@@    if (mixer) {@@    if (false) {@@tst_architecturefamilies"
"core/model/CheckpointLayout.cpp@@        if (!result.note.isEmpty() && !layout.notes.contains(result.note))@@        if (false)@@tst_architecturefamilies"
"core/analysis/results/ResultsFile.cpp@@        if (const QString issue = storedSpectrumProblem(row.result); !issue.isEmpty()) {@@        if (const QString issue = storedSpectrumProblem(row.result); false) {@@tst_resultsfile"
"core/analysis/execution/DeltaPlan.cpp@@    return m_enabled && cached && cached->deltaReference != m_referenceIdentity;@@    return false;@@tst_deltametrics"
"core/analysis/results/AnalysisSettingsKey.cpp@@    missing.delta = delta && (!stored.delta || stored.referenceStep != referenceStep);@@    missing.delta = delta && !stored.delta;@@tst_analysissettingskey"
"core/analysis/planning/AnalysisProgressModel.cpp@@    if (computed)@@    if (true || computed)@@tst_analysisprogressmodel"
"core/analysis/planning/AnalysisProgressModel.cpp@@    const int unopened = std::max(0, progress.checkpointsTotal - progress.checkpointsDone - 1);@@    const int unopened = 0;@@tst_analysisprogressmodel"
"core/analysis/execution/MatrixSolve.cpp@@        result.metrics.randDistance = known.metrics.randDistance;@@        ;@@tst_matrixsolve"
"core/analysis/planning/CacheReusePlan.cpp@@        m_reusable << (unchanged ? cached : nullptr);@@        m_reusable << cached;@@tst_cachereuseplan"
"core/analysis/planning/SubspaceOverlapPlan.cpp@@            m_recompute[i - 1] = true;@@            ;@@tst_subspaceoverlapplan"
"core/analysis/execution/DeltaPlan.cpp@@    if (namesake && (namesake->rows() != rows || namesake->cols() != cols)) {@@    if (false) {@@tst_deltaplan"
"core/analysis/planning/TeamSchedule.cpp@@            if (!said.contains(issue.text())) {@@            {@@tst_teamschedule"
"core/io/nanotron/NanotronReader.cpp@@                if (overlap(*other, block.global))@@                if (false)@@tst_nanotron"
"core/io/nanotron/NanotronReader.cpp@@            if (overlap(other.local, *l)) {@@            if (false) {@@tst_nanotron"
"core/io/nanotron/NanotronReader.cpp@@joined.data() + (row * cols + block.global.start[c]) * size);@@joined.data() + ((row - block.global.start[r] + block.local.start[r]) * cols + block.global.start[c]) * size);@@tst_nanotron"
"core/figures/ViewState.cpp@@        if (!first.isEmpty() && m_currentStep == first.last())@@        if (false)@@tst_compare"
"core/figures/ViewState.cpp@@    m_holdStep = sameRun && run.results.isEmpty() && !m_followLastStep;@@    m_holdStep = false;@@tst_mainwindow"
"widgets/SpectrumView.cpp@@    connect(state, &ViewState::currentStepChanged, this, &SpectrumView::followCurrentStep);@@    ;@@tst_views"
"core/io/logs/TrainingLogs.cpp@@        if (step > best) {@@        if (best < 0) {@@tst_traininglogs"
"core/io/logs/TrainingLogs.cpp@@    std::stable_sort(found.events.begin(), found.events.end(), [](const QString &a, const QString &b) { return writtenAt(a) < writtenAt(b); });@@    ;@@tst_traininglogs"
"widgets/LinePanels.cpp@@        const int left = std::max(m_lines->plotLeft(), m_curves->plotLeft());@@        const int left = 0;@@tst_views"
"core/io/FolderWeights.cpp@@    keepOnePeftAdapterCopy(result);@@    ;@@tst_loraadapters"
"widgets/LinePanels.cpp@@        connect(m_lines, &ChartView::crosshairMoved, m_curves, &ChartView::followCrosshair);@@        ;@@tst_views"
"app/window/MainWindow.cpp@@    readTrainingLogsAgain(m_source, m_state->scalarLog().sourceStamp());@@    ;@@tst_mainwindow"
"core/analysis/execution/MergeBase.cpp@@    sum.noalias() += delta.scale * (delta.left * delta.right.transpose());@@    sum.noalias() += (delta.left * delta.right.transpose());@@tst_loraadapters"
"core/analysis/execution/MergeBase.cpp@@    if (adapterConfig.value(QStringLiteral(\"use_dora\")).toBool())@@    if (false)@@tst_loraadapters"
"core/spectral/SingularValueSolver.cpp@@        if (spectrum.ok() && m_topVectors > 0)@@        if (false)@@tst_loraadapters"
"core/analysis/execution/RunAnalyzer.cpp@@            tensor.parts.removeIf([&](const MatrixPart &part) { return !m_settings.onlyMatrices.contains(part.id); });@@            ;@@tst_loraadapters"
"app/window/MainWindow.cpp@@[this, widget] { m_tabs->setCurrentWidget(widget); }@@[this, tab] { m_tabs->setCurrentIndex(std::min(tab + 1, m_tabs->count() - 1)); }@@tst_windowdetails"
"resources/desktop/write_reference.cpp@@    for (std::size_t i = 0; i < figures.size(); ++i) {@@    for (std::size_t i = 0; i + 1 < figures.size(); ++i) {@@tst_commandoptions"
"widgets/SpectrumView.cpp@@{ return matrix() ? QString() : QStringLiteral(\"no matrix is chosen for the spectrum\"); }@@{ return QString(); }@@tst_figureexport"
"widgets/RunPanels.cpp@@    if (options.colourRanges.size() > m_metrics.size())@@    if (false)@@tst_figureexport"
"widgets/FigureCatalog.cpp@@        names << QLatin1String(kind.info().id);@@        ;@@tst_commandoptions"
"core/analysis/results/ResultsFile.cpp@@    if (const QString problem = sealProblem(path); !problem.isEmpty()) {@@    if (const QString problem = sealProblem(path); false) {@@tst_resultsfile"
"core/io/FileContent.cpp@@    if (head->size() == 16 && QByteArray(kResultsFileSeal).startsWith(*head)) {@@    if (false) {@@tst_commandline"
"core/analysis/results/ResultsTable.h@@        if (!values && column.presence != Presence::Optional) {@@        if (!values && column.presence == Presence::IfPresent) {@@tst_resultsfile"
"core/analysis/results/ResultsTable.h@@    bool inSchema(int version) const { return version >= since && (until == 0 || version < until); }@@    bool inSchema(int version) const { return until == 0 || version < until; }@@tst_resultstable"
"core/analysis/results/ResultsCacheLocation.cpp@@QDir::cleanPath(QFileInfo(folder).absoluteFilePath())@@QFileInfo(folder).absoluteFilePath()@@tst_resultscachelocation"
"core/base/PrintableText.cpp@@    for (qsizetype i = 0; i < items.size() && i < kBriefListItems; ++i)@@    for (qsizetype i = 0; i < items.size(); ++i)@@tst_printabletext"
"core/io/megatron/MegatronLayout.cpp@@.arg(briefList(named, missing));@@.arg(named.join(QLatin1String(\", \")));@@tst_megatroncheckpoint"
"core/io/megatron/MegatronShardMerge.cpp@@.arg(briefList(named, missing))@@.arg(named.join(QLatin1String(\", \")))@@tst_megatroncheckpoint"
"core/io/FolderWeights.cpp@@.arg(briefList(named, missing), QString::number(total))@@.arg(named.join(QLatin1String(\", \")), QString::number(total))@@tst_folderlayouts"
"core/io/dcp/DcpMetadata.cpp@@ && members.contains(name->text);@@ && !name->text.isEmpty();@@tst_distributedcheckpoint"
"core/io/dcp/DcpMetadata.cpp@@    if (result.globalsNotOnlyCalled.contains(kGetattr))@@    if (false)@@tst_distributedcheckpoint"
"core/io/RegularFile.cpp@@    if (!json.contains(\"NaN\") && !json.contains(\"Infinity\"))@@    if (true)@@tst_formatreaders"
"core/io/RegularFile.cpp@@                out.append(json[++i]);@@                ;@@tst_formatreaders"
"core/io/dcp/DistributedCheckpointReader.cpp@@        if (reach && reach->file == r.file && r.begin < reach->end) {@@        if (false) {@@tst_distributedcheckpoint"
"core/io/deepspeed/DeepSpeedCheckpointReader.cpp@@        if (taken[i].storage == taken[i - 1].storage && taken[i].first < taken[i - 1].end) {@@        if (false) {@@tst_deepspeedcheckpoint"
"core/model/CheckpointLayout.cpp@@constexpr qint64 kMaxExperts = 65536;@@constexpr qint64 kMaxExperts = qint64(1) << 40;@@tst_inputlimits"
"core/io/nemo/TarDirectory.cpp@@ && files.contains(name)) {@@ && false) {@@tst_megatroncheckpoint"
"core/analysis/results/ResultsFile.cpp@@(r.isHead() ? row.svCount > order : row.svCount != order)) {@@false) {@@tst_resultsfile"
"core/analysis/discovery/ContentFingerprint.cpp@@        if (checkpoint.ownsSubtree) {@@        if (false) {@@tst_cachereuseplan"
"core/spectral/FactoredSpectrum.cpp@@    sigma.head(nonzero) = std::abs(scale) * core.head(nonzero);@@    sigma.head(nonzero) = core.head(nonzero);@@tst_loraadapters"
"core/analysis/execution/MatrixSolve.cpp@@    left << own.scale * own.left, -reference.scale * reference.left;@@    left << own.scale * own.left, reference.scale * reference.left;@@tst_loraadapters"
)

backup=$(mktemp -d)
restore() { for f in "$backup"/*.path; do [ -e "$f" ] && cp "${f%.path}" "$(cat "$f")"; done; rm -rf "$backup"; }
trap restore EXIT

killed=0 survived=0
for m in "${mutations[@]}"; do
    file=${m%%@@*}; rest=${m#*@@}
    line=${rest%%@@*}; rest=${rest#*@@}
    broken=${rest%%@@*}; test=${rest#*@@}
    key=$(echo "$file" | tr / _)
    cp "$file" "$backup/$key"; echo "$file" > "$backup/$key.path"
    # perl-base is on every Debian system; \Q…\E matches the text literally.
    if ! perl -e 'my ($path, $line, $broken) = @ARGV; local $/; open(my $in, "<", $path) or die "$path: $!\n";
                  my $text = <$in>; my $count = () = $text =~ /\Q$line\E/g;
                  die "$path: the guarded text is not found exactly once\n" unless $count == 1;
                  $text =~ s/\Q$line\E/$broken/; open(my $out, ">", $path) or die; print $out $text;' "$file" "$line" "$broken"
    then
        echo "STALE    $file: update this mutation"; survived=$((survived + 1)); continue
    fi
    # The build redoes only what the broken file touches; then only the suite that must fail runs.
    if cmake --build "$build" -j"$(nproc)" > /dev/null 2>&1 && ctest --test-dir "$build" -R "^$test\$" > /dev/null 2>&1; then
        echo "SURVIVED $file ($test still passes)"; survived=$((survived + 1))
    else
        echo "killed   $file ($test fails)"; killed=$((killed + 1))
    fi
    cp "$backup/$key" "$file"
done
echo "$killed killed, $survived survived"
cmake --build "$build" -j"$(nproc)" > /dev/null 2>&1 # back to the unbroken build
[ "$survived" -eq 0 ]
