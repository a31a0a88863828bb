{{/* The release's full name, 63 characters at most. */}}
{{- define "gw.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels that select the pods. */}}
{{- define "gw.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "gw.labels" -}}
{{ include "gw.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gw.serviceAccountName" -}}
{{- default (include "gw.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "gw.secretName" -}}
{{- default (include "gw.fullname" .) .Values.secret.existingSecret -}}
{{- end -}}
