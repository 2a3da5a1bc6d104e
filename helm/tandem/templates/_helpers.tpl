{{/* The chart name, overridable by nameOverride. */}}
{{- define "tandem.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The fully qualified name of the release's objects. */}}
{{- define "tandem.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The chart label value: name and version. */}}
{{- define "tandem.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "tandem.labels" -}}
helm.sh/chart: {{ include "tandem.chart" . }}
{{ include "tandem.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the release's pods. */}}
{{- define "tandem.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tandem.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The service account the pods run as. */}}
{{- define "tandem.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tandem.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The container image reference. */}}
{{- define "tandem.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The data directory inside the container: tandem.storage.data-dir. */}}
{{- define "tandem.dataDir" -}}
/var/lib/tandem
{{- end }}

{{/* The directory the ConfigMap's application.yaml is mounted in. */}}
{{- define "tandem.configDir" -}}
/etc/tandem
{{- end }}

{{/* The name of the data directory's claim. */}}
{{- define "tandem.claimName" -}}
{{- default (printf "%s-data" (include "tandem.fullname" .)) .Values.storage.persistence.existingClaim }}
{{- end }}

{{/* Whether the cluster serves the Prometheus Operator API ("true" or ""). */}}
{{- define "tandem.hasMonitoringApi" -}}
{{- if or (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") (has "monitoring.coreos.com/v1" .Values.apiVersions) -}}
true
{{- end }}
{{- end }}

{{/*
The application.yaml Tandem runs with: Spring Boot properties built from the values, rendered with
toYaml so that it is always valid YAML.
*/}}
{{- define "tandem.applicationConfig" -}}
{{- $tandem := dict
  "mode" .Values.mode
  "compute" (dict
    "interactive-runtime" (dict "enabled" .Values.twoRuntimes)
    "maintenance-workers" .Values.workers.maintenance
    "interactive-workers" .Values.workers.interactive
    "maintenance-nice" .Values.workers.maintenanceNice
    "hydration-nice" .Values.workers.hydrationNice
    "jit-nice" .Values.workers.jitNice
    "hydration-lanes" .Values.workers.hydrationLanes
    "fresh-round-updates" .Values.workers.freshRoundUpdates
    "maintenance-reserve" .Values.workers.maintenanceReserve
    "dataflow-memory-budget" .Values.dataflowMemoryBudget)
  "storage" (dict
    "data-dir" (include "tandem.dataDir" .)
    "fsync" .Values.storage.fsync
    "tick-interval" .Values.storage.tickInterval
    "backend" .Values.storage.backend
    "kafka" (dict
      "bootstrap-servers" .Values.storage.kafka.bootstrapServers
      "topic" .Values.storage.kafka.topic
      "replication-factor" .Values.storage.kafka.replicationFactor
      "timeout" .Values.storage.kafka.timeout))
  "compaction" (dict "window" .Values.compaction.window)
  "peek" (dict
    "max-result-rows" .Values.peek.maxResultRows
    "max-pending" .Values.peek.maxPending) }}
{{- $spring := dict "application" (dict "name" "tandem") }}
{{- if .Values.configServer.url }}
{{- $_ := set $spring "config" (dict "import" (printf "optional:configserver:%s" .Values.configServer.url)) }}
{{- $_ := set $spring "cloud" (dict "config" (dict "enabled" true)) }}
{{- else }}
{{- $_ := set $spring "cloud" (dict "config" (dict "enabled" false)) }}
{{- end }}
{{- $management := dict
  "server" (dict "port" .Values.ports.management)
  "endpoint" (dict "health" (dict "probes" (dict "enabled" true)))
  "endpoints" (dict "web" (dict "exposure" (dict "include" "health,info,prometheus,refresh"))) }}
{{- $security := dict }}
{{- with .Values.security.jwt }}
{{- if or .issuerUri .jwkSetUri }}
{{- $jwt := dict "roles-claim" .rolesClaim }}
{{- if .issuerUri }}{{- $_ := set $jwt "issuer-uri" .issuerUri }}{{- end }}
{{- if .jwkSetUri }}{{- $_ := set $jwt "jwk-set-uri" .jwkSetUri }}{{- end }}
{{- if .audience }}{{- $_ := set $jwt "audience" .audience }}{{- end }}
{{- $_ := set $security "jwt" $jwt }}
{{- end }}
{{- end }}
{{- if $security }}
{{- $_ := set $tandem "security" $security }}
{{- end }}
{{- $server := dict "port" .Values.ports.http }}
{{- if .Values.tls.secret }}
{{- $_ := set $server "ssl" (dict
  "certificate" (printf "file:%s/tls.crt" (include "tandem.tlsDir" .))
  "certificate-private-key" (printf "file:%s/tls.key" (include "tandem.tlsDir" .))) }}
{{- end }}
{{- $config := dict
  "server" $server
  "management" $management
  "spring" $spring
  "tandem" $tandem }}
{{- toYaml (mergeOverwrite $config (deepCopy .Values.extraConfig)) }}
{{- end }}

{{/* Where the tokens Secret is mounted. */}}
{{- define "tandem.tokensDir" -}}
/etc/tandem/tokens
{{- end }}

{{/* Where the TLS Secret is mounted. */}}
{{- define "tandem.tlsDir" -}}
/etc/tandem/tls
{{- end }}
