"""Asset checks of the inclusion tracker."""
